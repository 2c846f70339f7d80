import { describe, expect, it } from 'vitest';
import { Random } from '../src/core/random';
import { FAMILIES, TIER_FAMILIES, type FamilyName } from '../src/core/tasks/families';
import { TIERS, type Problem, type Tier } from '../src/core/tasks/problem';
import { formatPrompt } from '../src/core/tasks/prompt';
import { isTestExpression, testSet, trainProblem } from '../src/core/tasks/splits';
import { pickWeighted } from '../src/core/tasks/weightedChoice';

const ONLY_EASY: Record<Tier, number> = { easy: 1, medium: 0, hard: 0 };

function draw(seed: number, n: number, mix: Record<Tier, number>): Problem[] {
  const rng = new Random(seed);
  return Array.from({ length: n }, () => trainProblem(rng, mix));
}

const PINNED_FIRST_EASY = ['6+7', '7+9', '3+7'];
const PINNED_FIRST_HARD = '578*37';

describe('families', () => {
  it('each family makes problems of its tier, with id family:expression and an integer answer', () => {
    const rng = new Random(1);
    for (const tier of TIERS) {
      for (const family of TIER_FAMILIES[tier]) {
        for (let i = 0; i < 200; i++) {
          const p = FAMILIES[family](rng);
          expect(p.tier).toBe(tier);
          expect(p.family).toBe(family);
          expect(p.id).toBe(`${family}:${p.expression}`);
          expect(Number.isSafeInteger(p.answer) && p.answer >= 0).toBe(true);
          expect(p.expression).toMatch(/^[0-9+\-*%]+$/);
        }
      }
    }
    expect(Object.keys(FAMILIES).sort()).toEqual(TIERS.flatMap((t) => TIER_FAMILIES[t]).sort());
  });

  it('draws operands in the documented ranges', () => {
    const rng = new Random(2);
    const sums = new Set<string>();
    for (let i = 0; i < 3000; i++) sums.add(FAMILIES.oneDigitSum(rng).expression);
    // one-digit sums: a, b in 0..9, so exactly 10 * 10 expressions
    expect(sums.size).toBe(100);
    const shapes: Record<FamilyName, RegExp> = {
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
    for (const [family, shape] of Object.entries(shapes) as [FamilyName, RegExp][]) {
      for (let i = 0; i < 300; i++) expect(FAMILIES[family](rng).expression).toMatch(shape);
    }
  });

  it('computes answers by hand-checkable arithmetic', () => {
    // Find a draw of each family and recompute it from the expression's pieces.
    const rng = new Random(3);
    for (let i = 0; i < 200; i++) {
      const d = FAMILIES.twoDigitDifference(rng);
      const [a, b] = d.expression.split('-').map(Number);
      expect(d.answer).toBe(a - b);
      expect(a).toBeGreaterThanOrEqual(b);
      const m = FAMILIES.modulo(rng);
      const [x, y] = m.expression.split('%').map(Number);
      expect(m.answer).toBe(x - Math.floor(x / y) * y);
      const p = FAMILIES.productPlusTerm(rng);
      const [prod, c] = p.expression.split('+');
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
  it('is fixed: 16 easy, 16 medium, 32 hard, every family present, unique, identical on every call', () => {
    const set = testSet();
    expect(set).toHaveLength(64);
    const count = (tier: Tier) => set.filter((p) => p.tier === tier).length;
    expect([count('easy'), count('medium'), count('hard')]).toEqual([16, 16, 32]);
    expect(new Set(set.map((p) => p.family)).size).toBe(Object.keys(FAMILIES).length);
    expect(new Set(set.map((p) => p.expression)).size).toBe(64);
    expect(testSet()).toEqual(set);
    expect(set.every((p) => isTestExpression(p.expression))).toBe(true);
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
    expect(testSet()).toHaveLength(64);
  });

  it('holds out symmetric sums and products only as a<b, so the swapped twin stays in training', () => {
    const symmetric = testSet().filter((p) => ['oneDigitSum', 'twoDigitSum', 'oneDigitProduct'].includes(p.family));
    expect(symmetric).toHaveLength(16 + 6 + 5);
    for (const p of symmetric) {
      const m = /^(\d+)([+*])(\d+)$/.exec(p.expression)!;
      expect(Number(m[1])).toBeLessThan(Number(m[3]));
      expect(isTestExpression(`${m[3]}${m[2]}${m[1]}`)).toBe(false);
    }
  });
});

describe('trainProblem', () => {
  it('never returns a test expression, and reaches every other one-digit sum', () => {
    const seen = new Set(draw(6, 20000, ONLY_EASY).map((p) => p.expression));
    const heldOutEasy = testSet().filter((p) => p.tier === 'easy').length;
    for (const e of seen) expect(isTestExpression(e)).toBe(false);
    // 100 one-digit sums minus the 16 held out
    expect(seen.size).toBe(100 - heldOutEasy);
  });

  it('never returns a test expression in any tier', () => {
    for (const p of draw(7, 20000, { easy: 1, medium: 1, hard: 1 })) expect(isTestExpression(p.expression)).toBe(false);
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
    expect(() => trainProblem(new Random(1), { easy: 0, medium: 0, hard: 0 })).toThrow(/sum to zero/);
  });
});

describe('formatPrompt', () => {
  it('writes the exact prompt format', () => {
    const p: Problem = { id: 'productPlusTerm:347*29+18', expression: '347*29+18', answer: 10081, tier: 'hard', family: 'productPlusTerm' };
    expect(formatPrompt(p)).toBe('Q: what is 347*29+18?\nA:');
  });
});
