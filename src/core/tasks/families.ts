/**
 * Problem families by name (TensorFlow Playground's datasets map). Operands are non-negative and
 * answers stay far below 2^53, so JS integer arithmetic equals Python's (`%` included).
 *
 * easy: one-digit sums, within a tiny model's mental arithmetic.
 * medium: two-digit sums and differences, one-digit products.
 * hard: what a tiny model cannot do in its head: multi-digit products, sums of several terms,
 * a product plus a term, modulo, small powers.
 */
import type { Random } from '../random';
import type { Problem, Tier } from './problem';

export type ProblemGenerator = (rng: Random) => Problem;

function problem(family: string, tier: Tier, expression: string, answer: number): Problem {
  return { id: `${family}:${expression}`, expression, answer, tier, family };
}

export const FAMILIES = {
  oneDigitSum: (rng: Random) => {
    const a = rng.int(0, 9);
    const b = rng.int(0, 9);
    return problem('oneDigitSum', 'easy', `${a}+${b}`, a + b);
  },
  twoDigitSum: (rng: Random) => {
    const a = rng.int(10, 99);
    const b = rng.int(10, 99);
    return problem('twoDigitSum', 'medium', `${a}+${b}`, a + b);
  },
  twoDigitDifference: (rng: Random) => {
    const a = rng.int(10, 99);
    const b = rng.int(10, a);
    return problem('twoDigitDifference', 'medium', `${a}-${b}`, a - b);
  },
  oneDigitProduct: (rng: Random) => {
    const a = rng.int(2, 9);
    const b = rng.int(2, 9);
    return problem('oneDigitProduct', 'medium', `${a}*${b}`, a * b);
  },
  multiDigitProduct: (rng: Random) => {
    const a = rng.int(100, 999);
    const b = rng.int(10, 99);
    return problem('multiDigitProduct', 'hard', `${a}*${b}`, a * b);
  },
  sumOfTerms: (rng: Random) => {
    const terms = Array.from({ length: rng.int(3, 4) }, () => rng.int(1, 99));
    return problem('sumOfTerms', 'hard', terms.join('+'), terms.reduce((s, t) => s + t, 0));
  },
  productPlusTerm: (rng: Random) => {
    const a = rng.int(100, 999);
    const b = rng.int(10, 99);
    const c = rng.int(1, 99);
    return problem('productPlusTerm', 'hard', `${a}*${b}+${c}`, a * b + c);
  },
  modulo: (rng: Random) => {
    const a = rng.int(100, 999);
    const b = rng.int(7, 99);
    return problem('modulo', 'hard', `${a}%${b}`, a % b);
  },
  power: (rng: Random) => {
    const base = rng.int(2, 19);
    const exponent = rng.int(2, 4);
    return problem('power', 'hard', `${base}**${exponent}`, base ** exponent);
  },
} satisfies Record<string, ProblemGenerator>;

export type FamilyName = keyof typeof FAMILIES;

/** The families of each tier; a tier's problems are drawn uniformly over its families. */
export const TIER_FAMILIES: Record<Tier, readonly FamilyName[]> = {
  easy: ['oneDigitSum'],
  medium: ['twoDigitSum', 'twoDigitDifference', 'oneDigitProduct'],
  hard: ['multiDigitProduct', 'sumOfTerms', 'productPlusTerm', 'modulo', 'power'],
};
