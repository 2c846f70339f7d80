/**
 * Train/test split. The test set is fixed (made from an internal seed) and the train sampler never
 * returns a question whose expression is in it.
 *
 * Test set size: 16 easy + 16 medium + 32 hard = 64 problems. It is decoded greedily every K steps
 * on a 2-core CPU, so it must stay small; at 64 items the standard error of an accuracy near 0.5
 * is 0.06, well under the 0.5 rise the runs must show. Hard gets half because the tool matters
 * there: it is where the base model fails and code succeeds.
 */
import { Random } from '../random';
import { FAMILIES, TIER_FAMILIES } from './families';
import { TIERS, type Problem, type Tier } from './problem';
import { pickWeighted } from './weightedChoice';

const TEST_SEED = 20261130;
const TEST_COUNTS: Record<Tier, number> = { easy: 16, medium: 16, hard: 32 };

/**
 * Families whose two operands share a range, so `b+a` is a problem of the family whenever `a+b` is.
 * Their test items are held out only as `a+b` with a < b, so the swapped `b+a` stays in training:
 * an easy test item then asks for arithmetic the model can know (commutation), not a fact it never
 * saw. This rules out a+a, which could not keep a swapped twin.
 */
const SYMMETRIC_FAMILIES: ReadonlySet<string> = new Set(['oneDigitSum', 'twoDigitSum', 'oneDigitProduct']);

function swappedTwinStaysInTraining(p: Problem): boolean {
  if (!SYMMETRIC_FAMILIES.has(p.family)) return true;
  const [a, b] = p.expression.split(/[+*]/).map(Number);
  return a < b;
}

function buildTestSet(): Problem[] {
  const rng = new Random(TEST_SEED);
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const tier of TIERS) {
    const families = TIER_FAMILIES[tier];
    for (let i = 0; i < TEST_COUNTS[tier]; i++) {
      // Round-robin over the tier's families, so each is represented.
      const generate = FAMILIES[families[i % families.length]];
      let p = generate(rng);
      while (seen.has(p.expression) || !swappedTwinStaysInTraining(p)) p = generate(rng);
      seen.add(p.expression);
      problems.push(p);
    }
  }
  return problems;
}

const TEST_SET: readonly Problem[] = Object.freeze(buildTestSet().map((p) => Object.freeze(p)));
const TEST_EXPRESSIONS: ReadonlySet<string> = new Set(TEST_SET.map((p) => p.expression));

/** The fixed held-out set, the same on every call and machine (a fresh array of frozen problems). */
export function testSet(): Problem[] {
  return [...TEST_SET];
}

/** True when `expression` is held out for testing. */
export function isTestExpression(expression: string): boolean {
  return TEST_EXPRESSIONS.has(expression);
}

/**
 * One training problem: a tier drawn by the weights in `mix` (need not sum to 1), a family uniform
 * within the tier, redrawn while the expression is in the test set.
 */
export function trainProblem(rng: Random, mix: Record<Tier, number>): Problem {
  const tier = pickWeighted(rng, mix, TIERS);
  const families = TIER_FAMILIES[tier];
  for (;;) {
    const p = FAMILIES[rng.pick(families)](rng);
    if (!TEST_EXPRESSIONS.has(p.expression)) return p;
  }
}
