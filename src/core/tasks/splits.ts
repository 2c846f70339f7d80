/**
 * Train/test split. The held-out problems are fixed (made from internal seeds) and the train
 * sampler never returns one of them.
 *
 * Test set (decoded greedily every K steps during training, so it stays small): 16 easy + 16
 * medium + 32 hard arithmetic problems, then 8 of each other family and 16 chains: 160. The
 * evaluation set (`npm run eval`, the lab's evaluation: k samples each) is the test set plus 32 more
 * of each other non-arithmetic family and 112 more chains: 592 problems, 2,368 samples per Nmax at
 * k = 4. The chains are many because their depths split them: the 128 hold 40, 41, 25, 12 and 10
 * of depths 1 to 5, so the gain of each extra allowed call is measured on tens of problems. The
 * problems differ in difficulty far more than the samples of one problem do, so the standard error
 * over problems is larger than a binomial count suggests: 0.019 at a pass@1 of 0.52-0.62 (the
 * ablation runs, docs/tasks.md).
 */
import { Random } from '../random';
import { FAMILIES, KIND_FAMILIES, TIER_FAMILIES, type FamilyName } from './families';
import { KINDS, TIERS, type Kind, type Problem, type Tier } from './problem';
import { pickWeighted } from './weightedChoice';

const TEST_SEED = 20261130;
const EVAL_SEED = 20261201;
const TEST_COUNTS: Record<Tier, number> = { easy: 16, medium: 16, hard: 32 };
const TEST_PER_FAMILY: Partial<Record<FamilyName, number>> = { sevens: 16 };
const EVAL_EXTRA_PER_FAMILY: Partial<Record<FamilyName, number>> = { sevens: 112 };
const testCount = (family: FamilyName) => TEST_PER_FAMILY[family] ?? 8;
const evalExtraCount = (family: FamilyName) => EVAL_EXTRA_PER_FAMILY[family] ?? 32;

/** What a run trains on: the share of each kind, and of each tier within arithmetic (need not sum to 1). */
export interface ProblemMix {
  tierMix: Record<Tier, number>;
  kindMix: Record<Kind, number>;
}

/** Arithmetic only: the problems every run drew before the other kinds existed. */
export const ARITHMETIC_ONLY: Record<Kind, number> = { arithmetic: 1, compose: 0, search: 0, errorProne: 0, multiStep: 0, chain: 0 };

/** A kind mix saved before the multi-step or the chain kind existed (a config, a corpus recipe): none of those kinds. */
export function withLaterKindShares<T extends object>(savedMix: T): T & { multiStep: unknown; chain: unknown } {
  return { multiStep: 0, chain: 0, ...savedMix };
}

/**
 * A kind mix's shares in KINDS order, written before the multi-step or the chain kind (four or
 * five shares, as in a link, a flag or a base model's recipe): those kinds get 0. A list of any
 * other length comes back as it is, for the caller to refuse.
 */
export function withLaterKindZeros<T>(shares: readonly T[]): (T | number)[] {
  const missing = KINDS.length - shares.length;
  return missing === 1 || missing === 2 ? [...shares, ...new Array<number>(missing).fill(0)] : [...shares];
}

/**
 * Families whose two operands share a range, so `b+a` is a problem of the family whenever `a+b` is.
 * Their test items are held out only as `a+b` with a < b, so the swapped `b+a` stays in training:
 * an easy test item then asks for arithmetic the model can know (commutation), not a fact it never
 * saw. This rules out a+a, which could not keep a swapped twin.
 */
const SYMMETRIC_FAMILIES: ReadonlySet<string> = new Set(['oneDigitSum', 'twoDigitSum', 'oneDigitProduct']);

function swappedTwinStaysInTraining(p: Problem): boolean {
  if (!SYMMETRIC_FAMILIES.has(p.family) || p.expression === undefined) return true;
  const [a, b] = p.expression.split(/[+*]/).map(Number);
  return a < b;
}

const NON_ARITHMETIC: readonly FamilyName[] = KINDS.filter((k) => k !== 'arithmetic').flatMap((k) => KIND_FAMILIES[k]);

function drawHeldOut(rng: Random, family: FamilyName, count: number, seen: Set<string>, into: Problem[]): void {
  for (let i = 0; i < count; i++) {
    let p = FAMILIES[family](rng);
    while (seen.has(p.id) || !swappedTwinStaysInTraining(p)) p = FAMILIES[family](rng);
    seen.add(p.id);
    into.push(Object.freeze(p));
  }
}

function buildHeldOut(): { test: Problem[]; evaluation: Problem[] } {
  const rng = new Random(TEST_SEED);
  const seen = new Set<string>();
  const test: Problem[] = [];
  for (const tier of TIERS) {
    const families = TIER_FAMILIES[tier];
    // Round-robin over the tier's families, so each is represented.
    for (let i = 0; i < TEST_COUNTS[tier]; i++) drawHeldOut(rng, families[i % families.length], 1, seen, test);
  }
  for (const family of NON_ARITHMETIC) drawHeldOut(rng, family, testCount(family), seen, test);
  const extraRng = new Random(EVAL_SEED);
  const evaluation = [...test];
  for (const family of NON_ARITHMETIC) drawHeldOut(extraRng, family, evalExtraCount(family), seen, evaluation);
  return { test, evaluation };
}

const HELD_OUT = buildHeldOut();
const HELD_OUT_IDS: ReadonlySet<string> = new Set(HELD_OUT.evaluation.map((p) => p.id));

/** The fixed held-out set decoded during training, the same on every call and machine (a fresh array of frozen problems). */
export function testSet(): Problem[] {
  return [...HELD_OUT.test];
}

/** The larger fixed held-out set of the evaluation: the test set first, then more of every non-arithmetic family. */
export function evalSet(): Problem[] {
  return [...HELD_OUT.evaluation];
}

/** True when `p` is held out (in the test or the evaluation set). */
export function isHeldOut(p: Pick<Problem, 'id'>): boolean {
  return HELD_OUT_IDS.has(p.id);
}

/**
 * One training problem: a kind drawn by `kindMix` (no draw when only one kind has weight, so an
 * arithmetic-only mix draws exactly what it drew before the other kinds existed); for arithmetic a
 * tier by `tierMix` and a family uniform within it; otherwise a family uniform within the kind.
 * Redrawn while the problem is held out.
 */
export function trainProblem(rng: Random, mix: ProblemMix): Problem {
  const weighted = KINDS.filter((k) => mix.kindMix[k] > 0);
  const kind = weighted.length === 1 ? weighted[0] : pickWeighted(rng, mix.kindMix, KINDS);
  const families = kind === 'arithmetic' ? TIER_FAMILIES[pickWeighted(rng, mix.tierMix, TIERS)] : KIND_FAMILIES[kind];
  // The family is drawn again with each retry, as every run before stratified draws did.
  for (;;) {
    const p = FAMILIES[rng.pick(families)](rng);
    if (!HELD_OUT_IDS.has(p.id)) return p;
  }
}

/** One training problem of `family`, redrawn while it is held out. */
export function trainProblemOf(rng: Random, family: FamilyName): Problem {
  for (;;) {
    const p = FAMILIES[family](rng);
    if (!HELD_OUT_IDS.has(p.id)) return p;
  }
}
