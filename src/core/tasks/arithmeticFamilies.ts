/**
 * The arithmetic families: `what is <expression>?`, answered by copying the expression into
 * `print(...)`. Operands are non-negative and
 * answers stay far below 2^53, so JS integer arithmetic equals Python's (`%` included).
 *
 * easy: one-digit sums, within a tiny model's mental arithmetic.
 * medium: two-digit sums and differences, one-digit products.
 * hard: what a tiny model cannot do in its head: multi-digit products, sums of several terms,
 * a product plus a term, modulo, small powers.
 */
import type { Random } from '../random';
import type { Problem, ProblemGenerator, Tier } from './problem';

/** An arithmetic problem: `what is <expression>?`, solved by printing the expression. */
export function arithmeticProblem(family: string, tier: Tier, expression: string, answer: number): Problem {
  return { id: `${family}:${expression}`, question: `what is ${expression}?`, expression, solution: `print(${expression})`, answer, tier, kind: 'arithmetic', family };
}

export const ARITHMETIC_FAMILIES = {
  oneDigitSum: (rng: Random) => {
    const a = rng.int(0, 9);
    const b = rng.int(0, 9);
    return arithmeticProblem('oneDigitSum', 'easy', `${a}+${b}`, a + b);
  },
  twoDigitSum: (rng: Random) => {
    const a = rng.int(10, 99);
    const b = rng.int(10, 99);
    return arithmeticProblem('twoDigitSum', 'medium', `${a}+${b}`, a + b);
  },
  twoDigitDifference: (rng: Random) => {
    const a = rng.int(10, 99);
    const b = rng.int(10, a);
    return arithmeticProblem('twoDigitDifference', 'medium', `${a}-${b}`, a - b);
  },
  oneDigitProduct: (rng: Random) => {
    const a = rng.int(2, 9);
    const b = rng.int(2, 9);
    return arithmeticProblem('oneDigitProduct', 'medium', `${a}*${b}`, a * b);
  },
  multiDigitProduct: (rng: Random) => {
    const a = rng.int(100, 999);
    const b = rng.int(10, 99);
    return arithmeticProblem('multiDigitProduct', 'hard', `${a}*${b}`, a * b);
  },
  sumOfTerms: (rng: Random) => {
    const terms = Array.from({ length: rng.int(3, 4) }, () => rng.int(1, 99));
    return arithmeticProblem('sumOfTerms', 'hard', terms.join('+'), terms.reduce((s, t) => s + t, 0));
  },
  productPlusTerm: (rng: Random) => {
    const a = rng.int(100, 999);
    const b = rng.int(10, 99);
    const c = rng.int(1, 99);
    return arithmeticProblem('productPlusTerm', 'hard', `${a}*${b}+${c}`, a * b + c);
  },
  modulo: (rng: Random) => {
    const a = rng.int(100, 999);
    const b = rng.int(7, 99);
    return arithmeticProblem('modulo', 'hard', `${a}%${b}`, a % b);
  },
  power: (rng: Random) => {
    const base = rng.int(2, 19);
    const exponent = rng.int(2, 4);
    return arithmeticProblem('power', 'hard', `${base}**${exponent}`, base ** exponent);
  },
} satisfies Record<string, ProblemGenerator>;

export type ArithmeticFamilyName = keyof typeof ARITHMETIC_FAMILIES;

/** The arithmetic families of each tier; a tier's problems are drawn uniformly over its families. */
export const TIER_FAMILIES: Record<Tier, readonly ArithmeticFamilyName[]> = {
  easy: ['oneDigitSum'],
  medium: ['twoDigitSum', 'twoDigitDifference', 'oneDigitProduct'],
  hard: ['multiDigitProduct', 'sumOfTerms', 'productPlusTerm', 'modulo', 'power'],
};
