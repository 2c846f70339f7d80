import { describe, expect, it } from 'vitest';
import { NUMERIC_BOUNDS } from '../src/core/experiment';
import { BASE_MODEL_CONFIG } from '../src/core/model/config';
import { Random } from '../src/core/random';
import { ARITHMETIC_FAMILIES, type ArithmeticFamilyName } from '../src/core/tasks/arithmeticFamilies';
import { firstStepExpression, firstStepValue } from '../src/core/tasks/multiStepFamilies';
import { FAMILIES, KIND_FAMILIES, TIER_FAMILIES } from '../src/core/tasks/families';
import { CHAIN_DEPTH_SHARES, chainStartOf, chainSteps } from '../src/core/tasks/chainFamilies';
import { KINDS, problemDepth, TIERS, type Kind, type Problem, type Tier } from '../src/core/tasks/problem';
import { formatPrompt } from '../src/core/tasks/prompt';
import { ARITHMETIC_ONLY, evalSet, isHeldOut, testSet, trainProblem } from '../src/core/tasks/splits';
import { pickWeighted } from '../src/core/tasks/weightedChoice';
import { arithmeticProblem } from '../src/core/tasks/arithmeticFamilies';

const ONLY_EASY: Record<Tier, number> = { easy: 1, medium: 0, hard: 0 };

function draw(seed: number, n: number, tierMix: Record<Tier, number>, kindMix: Record<Kind, number> = ARITHMETIC_ONLY): Problem[] {
  const rng = new Random(seed);
  return Array.from({ length: n }, () => trainProblem(rng, { tierMix, kindMix }));
}

/** Held out, by the arithmetic expression's id. */
const isTestExpression = (family: string, expression: string) => isHeldOut({ id: `${family}:${expression}` });
const arithmetic = (expression: string | undefined): string => {
  if (expression === undefined) throw new Error('not an arithmetic problem');
  return expression;
};

const PINNED_FIRST_EASY = ['6+7', '7+9', '3+7'];
const PINNED_FIRST_HARD = '578*37';
// Drawn before the other kinds existed (commit 02aafab): an arithmetic-only mix must still draw these.
const PINNED_TRAIN_EASY = ['2+9', '9+3', '5+8', '1+4', '3+9'];

describe('families', () => {
  it('each arithmetic family makes problems of its tier, with id family:expression, the question and solution of the expression, and an integer answer', () => {
    const rng = new Random(1);
    for (const tier of TIERS) {
      for (const family of TIER_FAMILIES[tier]) {
        for (let i = 0; i < 200; i++) {
          const p = FAMILIES[family](rng);
          expect(p.tier).toBe(tier);
          expect(p.kind).toBe('arithmetic');
          expect(p.family).toBe(family);
          expect(p.id).toBe(`${family}:${p.expression}`);
          expect(p.question).toBe(`what is ${p.expression}?`);
          expect(p.solution).toBe(`print(${p.expression})`);
          expect(Number.isSafeInteger(p.answer) && p.answer >= 0).toBe(true);
          expect(p.expression).toMatch(/^[0-9+\-*%]+$/);
        }
      }
    }
    expect(Object.keys(ARITHMETIC_FAMILIES).sort()).toEqual(TIERS.flatMap((t) => TIER_FAMILIES[t]).sort());
    expect(Object.keys(FAMILIES).sort()).toEqual(KINDS.flatMap((k) => KIND_FAMILIES[k]).sort());
  });

  it('the other kinds ask questions that are not an expression to copy, with hard tier, id family:question and an integer answer', () => {
    const rng = new Random(12);
    const shapes: Record<string, RegExp> = {
      multiplesBelow: /^how many multiples of ([3-9]|1\d) are below [1-9]\d\d\?$/,
      digitSum: /^what is the sum of the digits of [2-9]\*\*[1-5]\d\?$/,
      gcd: /^what is the gcd of \d+ and \d+\?$/,
      primesBelow: /^how many primes are below \d+\?$/,
      cubeRoot: /^which x has x\*\*3 = \d+\?$/,
      smallestProduct: /^what is the smallest n with n\*\(n\+1\) > \d+\?$/,
      timesProduct: /^what is [1-9]\d\d x [1-9]\d\?$/,
      timesProductPlus: /^what is [1-9]\d\d x [1-9]\d \+ [1-9]\d?\?$/,
      productDigitSum: /^what is the digit sum of [1-9]\d\d\*[1-9]\d\?$/,
      sumDigitSum: /^what is the digit sum of [1-9]\d{3}\+[1-9]\d{3}\?$/,
      sevens: /^what is left when [1-9]\d{4,5} is divided by 7 until 7 no longer divides it\?$/,
    };
    expect(Object.keys(shapes).sort()).toEqual(KINDS.filter((k) => k !== 'arithmetic').flatMap((k) => KIND_FAMILIES[k]).sort());
    for (const kind of KINDS.filter((k) => k !== 'arithmetic')) {
      for (const family of KIND_FAMILIES[kind]) {
        for (let i = 0; i < 200; i++) {
          const p = FAMILIES[family](rng);
          expect(p).toMatchObject({ kind, family, tier: 'hard', id: `${family}:${p.question}` });
          expect(p.expression).toBeUndefined();
          expect(p.question).toMatch(shapes[family]);
          expect(Number.isSafeInteger(p.answer) && p.answer >= 0).toBe(true);
        }
      }
    }
  });

  it('computes the other kinds\' answers by hand-checkable arithmetic', () => {
    const rng = new Random(13);
    for (let i = 0; i < 100; i++) {
      const m = FAMILIES.multiplesBelow(rng);
      const [k, n] = m.question.match(/\d+/g)!.map(Number);
      expect(m.answer).toBe(Array.from({ length: n }, (_, j) => j).filter((j) => j > 0 && j % k === 0).length);
      const c = FAMILIES.cubeRoot(rng);
      expect(c.answer ** 3).toBe(Number(c.question.match(/= (\d+)/)![1]));
      const s = FAMILIES.smallestProduct(rng);
      const bound = Number(s.question.match(/> (\d+)/)![1]);
      expect(s.answer * (s.answer + 1)).toBeGreaterThan(bound);
      expect((s.answer - 1) * s.answer).toBeLessThanOrEqual(bound);
      const t = FAMILIES.timesProductPlus(rng);
      const [a, b, term] = t.question.match(/\d+/g)!.map(Number);
      expect(t.answer).toBe(a * b + term);
      expect(t.solution).toBe(`print(${a}*${b}+${term})`);
      const d = FAMILIES.productDigitSum(rng);
      const [x, y] = d.question.match(/\d+/g)!.map(Number);
      expect(firstStepExpression(d)).toBe(`${x}*${y}`);
      expect(firstStepValue(d)).toBe(x * y);
      expect(d.answer).toBe(String(x * y).split('').reduce((sum, digit) => sum + Number(digit), 0));
      expect(firstStepValue(FAMILIES.sumDigitSum(rng))).toBeGreaterThanOrEqual(2000);
    }
    expect(FAMILIES.productDigitSum(new Random(1)).answer).toBeLessThanOrEqual(9 * 6);
    expect(() => firstStepExpression({ question: 'what is 2+2?' })).toThrow(/not a multi-step question/);
    expect(FAMILIES.primesBelow(new Random(1)).answer).toBeGreaterThan(0);
  });

  it('divides a chain\'s number by 7 depth times to an answer 7 does not divide, one call per division, with depths 1-5 in falling shares', () => {
    const rng = new Random(14);
    const depths = [0, 0, 0, 0, 0, 0];
    const sizes = new Set<number>();
    for (let i = 0; i < 20000; i++) {
      const p = FAMILIES.sevens(rng);
      const start = chainStartOf(p);
      expect(p.answer % 7).not.toBe(0);
      expect(start).toBe(p.answer * 7 ** p.depth!);
      expect(chainSteps(start)).toHaveLength(p.depth!);
      expect(chainSteps(start).at(-1)).toBe(p.answer);
      expect(problemDepth(p)).toBe(p.depth);
      depths[p.depth!]++;
      sizes.add(String(start).length);
    }
    for (const [depth, share] of Object.entries(CHAIN_DEPTH_SHARES)) expect(depths[Number(depth)] / 20000).toBeCloseTo(share, 1);
    // Five or six digits at every depth, so a start's length does not give its depth away.
    expect([...sizes].sort()).toEqual([5, 6]);
    expect(chainSteps(16807 * 3)).toEqual([7203, 1029, 147, 21, 3]);
    expect(() => chainStartOf({ question: 'what is 2+2?' })).toThrow(/not a chain question/);
    expect(problemDepth(FAMILIES.productDigitSum(rng))).toBe(2);
    expect(problemDepth(FAMILIES.cubeRoot(rng))).toBe(1);
  });

  it('draws operands in the documented ranges', () => {
    const rng = new Random(2);
    const sums = new Set<string>();
    for (let i = 0; i < 3000; i++) sums.add(arithmetic(FAMILIES.oneDigitSum(rng).expression));
    // one-digit sums: a, b in 0..9, so exactly 10 * 10 expressions
    expect(sums.size).toBe(100);
    const shapes: Record<ArithmeticFamilyName, RegExp> = {
      oneDigitSum: /^\d\+\d$/,
      twoDigitSum: /^[1-9]\d\+[1-9]\d$/,
      twoDigitDifference: /^[1-9]\d-[1-9]\d$/,
      oneDigitProduct: /^[2-9]\*[2-9]$/,
      multiDigitProduct: /^[1-9]\d\d\*[1-9]\d$/,
      sumOfTerms: /^[1-9]\d?(\+[1-9]\d?){2,3}$/,
      productPlusTerm: /^[1-9]\d\d\*[1-9]\d\+[1-9]\d?$/,
      modulo: /^[1-9]\d\d%([7-9]|[1-9]\d)$/,
      power: /^([2-9]|1\d)\*\*[2-4]$/,
    };
    for (const [family, shape] of Object.entries(shapes) as [ArithmeticFamilyName, RegExp][]) {
      for (let i = 0; i < 300; i++) expect(FAMILIES[family](rng).expression).toMatch(shape);
    }
  });

  it('computes answers by hand-checkable arithmetic', () => {
    // Find a draw of each family and recompute it from the expression's pieces.
    const rng = new Random(3);
    for (let i = 0; i < 200; i++) {
      const d = FAMILIES.twoDigitDifference(rng);
      const [a, b] = arithmetic(d.expression).split('-').map(Number);
      expect(d.answer).toBe(a - b);
      expect(a).toBeGreaterThanOrEqual(b);
      const m = FAMILIES.modulo(rng);
      const [x, y] = arithmetic(m.expression).split('%').map(Number);
      expect(m.answer).toBe(x - Math.floor(x / y) * y);
      const p = FAMILIES.productPlusTerm(rng);
      const [prod, c] = arithmetic(p.expression).split('+');
      const [u, v] = prod.split('*').map(Number);
      expect(p.answer).toBe(u * v + Number(c));
    }
  });
});

describe('pickWeighted', () => {
  it('draws keys in proportion to their weights and never a zero-weight key', () => {
    const rng = new Random(4);
    const counts = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 8000; i++) counts[pickWeighted(rng, { a: 1, b: 3, c: 0 }, ['a', 'b', 'c'])]++;
    expect(counts.c).toBe(0);
    // expected a: 8000 * 1/4 = 2000, sd = sqrt(8000 * 0.25 * 0.75) = 38.7
    expect(Math.abs(counts.a - 2000)).toBeLessThan(160);
  });

  it('refuses negative, non-finite and all-zero weights', () => {
    const rng = new Random(5);
    expect(() => pickWeighted(rng, { a: -1, b: 2 }, ['a', 'b'])).toThrow(/weight of a/);
    expect(() => pickWeighted(rng, { a: NaN, b: 2 }, ['a', 'b'])).toThrow(/weight of a/);
    expect(() => pickWeighted(rng, { a: 0, b: 0 }, ['a', 'b'])).toThrow(/sum to zero/);
  });
});

describe('test set', () => {
  it('is fixed: 16 easy, 16 medium, 32 hard arithmetic, then 8 of each other family and 16 chains, unique, identical on every call', () => {
    const set = testSet();
    expect(set).toHaveLength(160);
    const arithmeticSet = set.slice(0, 64);
    expect(arithmeticSet.every((p) => p.kind === 'arithmetic')).toBe(true);
    const count = (tier: Tier) => arithmeticSet.filter((p) => p.tier === tier).length;
    expect([count('easy'), count('medium'), count('hard')]).toEqual([16, 16, 32]);
    expect(new Set(set.map((p) => p.family)).size).toBe(Object.keys(FAMILIES).length);
    for (const family of KINDS.filter((k) => k !== 'arithmetic').flatMap((k) => KIND_FAMILIES[k])) {
      expect(set.filter((p) => p.family === family)).toHaveLength(family === 'sevens' ? 16 : 8);
    }
    expect(new Set(set.map((p) => p.id)).size).toBe(160);
    expect(testSet()).toEqual(set);
    expect(set.every((p) => isHeldOut(p))).toBe(true);
    // Pinned: a changed generator or seed would silently change what every run is measured on.
    expect(set.slice(0, 3).map((p) => p.expression)).toEqual(PINNED_FIRST_EASY);
    expect(set[32].expression).toBe(PINNED_FIRST_HARD);
  });

  it('cannot be mutated through the returned array', () => {
    const set = testSet();
    set.pop();
    expect(() => {
      (set[0] as { answer: number }).answer = -1;
    }).toThrow();
    expect(testSet()).toHaveLength(160);
  });

  it('the evaluation set is the test set plus 32 more of each non-arithmetic family and 112 more chains, all held out', () => {
    const evaluation = evalSet();
    expect(evaluation).toHaveLength(592);
    expect(evaluation.slice(0, 160)).toEqual(testSet());
    expect(new Set(evaluation.map((p) => p.id)).size).toBe(592);
    for (const family of KIND_FAMILIES.search) expect(evaluation.filter((p) => p.family === family)).toHaveLength(40);
    const chains = evaluation.filter((p) => p.kind === 'chain');
    expect(chains).toHaveLength(128);
    // The evaluation set holds every depth, the deepest fewest, so the gain of each extra call is
    // measured on tens of problems; the test set has no depth-4 chain. splits.ts and docs/tasks.md quote these counts.
    const perDepth = (set: typeof chains) => [1, 2, 3, 4, 5].map((d) => set.filter((p) => p.kind === 'chain' && p.depth === d).length);
    expect(perDepth(chains)).toEqual([40, 41, 25, 12, 10]);
    expect(perDepth(testSet())).toEqual([7, 4, 2, 0, 3]);
    expect(evaluation.every((p) => isHeldOut(p))).toBe(true);
  });

  it('holds out symmetric sums and products only as a<b, so the swapped twin stays in training', () => {
    const symmetric = testSet().filter((p) => ['oneDigitSum', 'twoDigitSum', 'oneDigitProduct'].includes(p.family));
    expect(symmetric).toHaveLength(16 + 6 + 5);
    for (const p of symmetric) {
      const m = /^(\d+)([+*])(\d+)$/.exec(arithmetic(p.expression))!;
      expect(Number(m[1])).toBeLessThan(Number(m[3]));
      expect(isTestExpression(p.family, `${m[3]}${m[2]}${m[1]}`)).toBe(false);
    }
  });
});

describe('trainProblem', () => {
  it('never returns a test expression, and reaches every other one-digit sum', () => {
    const seen = new Set(draw(6, 20000, ONLY_EASY).map((p) => arithmetic(p.expression)));
    const heldOutEasy = testSet().filter((p) => p.tier === 'easy').length;
    for (const e of seen) expect(isTestExpression('oneDigitSum', e)).toBe(false);
    // 100 one-digit sums minus the 16 held out
    expect(seen.size).toBe(100 - heldOutEasy);
  });

  it('never returns a held-out problem of any tier or kind', () => {
    for (const p of draw(7, 20000, { easy: 1, medium: 1, hard: 1 }, { arithmetic: 1, compose: 1, search: 1, errorProne: 1, multiStep: 1, chain: 1 })) {
      expect(isHeldOut(p)).toBe(false);
    }
  });

  it('follows the kind mix, and an arithmetic-only mix draws exactly what it drew before the kinds existed', () => {
    const problems = draw(14, 4000, { easy: 1, medium: 1, hard: 1 }, { arithmetic: 2, compose: 1, search: 0, errorProne: 1, multiStep: 0, chain: 0 });
    const count = (kind: Kind) => problems.filter((p) => p.kind === kind).length;
    // expected compose 4000 * 1/4 = 1000, sd = sqrt(4000 * 0.25 * 0.75) = 27.4
    expect(Math.abs(count('compose') - 1000)).toBeLessThan(110);
    expect(Math.abs(count('arithmetic') - 2000)).toBeLessThan(130);
    expect(count('search')).toBe(0);
    expect(draw(9, 5, ONLY_EASY).map((p) => p.expression)).toEqual(PINNED_TRAIN_EASY);
  });

  it('follows the tier mix and is deterministic per seed', () => {
    const problems = draw(8, 4000, { easy: 1, medium: 1, hard: 2 });
    const hard = problems.filter((p) => p.tier === 'hard').length;
    // expected 4000 * 2/4 = 2000, sd = sqrt(4000 * 0.5 * 0.5) = 31.6
    expect(Math.abs(hard - 2000)).toBeLessThan(130);
    expect(draw(9, 50, ONLY_EASY).every((p) => p.tier === 'easy')).toBe(true);
    expect(draw(8, 100, { easy: 1, medium: 1, hard: 2 })).toEqual(problems.slice(0, 100));
    expect(draw(10, 100, { easy: 1, medium: 1, hard: 2 })).not.toEqual(problems.slice(0, 100));
  });

  it('refuses a mix with no weight', () => {
    expect(() => trainProblem(new Random(1), { tierMix: { easy: 0, medium: 0, hard: 0 }, kindMix: ARITHMETIC_ONLY })).toThrow(/sum to zero/);
    expect(() => trainProblem(new Random(1), { tierMix: ONLY_EASY, kindMix: { arithmetic: 0, compose: 0, search: 0, errorProne: 0, multiStep: 0, chain: 0 } })).toThrow(/sum to zero/);
  });
});

describe('formatPrompt', () => {
  it('writes the exact prompt format', () => {
    const p: Problem = arithmeticProblem('productPlusTerm', 'hard', '347*29+18', 10081);
    expect(formatPrompt(p)).toBe('Q: what is 347*29+18?\nA:');
    expect(formatPrompt(FAMILIES.cubeRoot(new Random(1)))).toMatch(/^Q: which x has x\*\*3 = \d+\?\nA:$/);
  });
});

describe('prompt lengths', () => {
  it('leave the longest response the knobs allow inside the base model\'s context', () => {
    const rng = new Random(15);
    const mix = { tierMix: { easy: 1, medium: 1, hard: 1 }, kindMix: { arithmetic: 1, compose: 1, search: 1, errorProne: 1, multiStep: 1, chain: 1 } };
    const problems = [...evalSet(), ...Array.from({ length: 5000 }, () => trainProblem(rng, mix))];
    const longest = Math.max(...problems.map((p) => formatPrompt(p).length));
    // +1: the BOS token before the prompt.
    expect(longest + 1 + NUMERIC_BOUNDS.maxResponseTokens[1]).toBeLessThanOrEqual(BASE_MODEL_CONFIG.contextLength);
  });
});

