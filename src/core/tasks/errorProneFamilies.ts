/**
 * Error-prone: products written with `x` for times. Copied into Python as they stand they raise
 * `SyntaxError: invalid syntax. Perhaps you forgot a comma?`, so the first call of a model that
 * copies fails, and a second, corrected call (`*` for `x`) pays off.
 */
import type { Random } from '../random';
import type { Problem, ProblemGenerator } from './problem';

function problem(family: string, written: string, expression: string, answer: number): Problem {
  const question = `what is ${written}?`;
  return { id: `${family}:${question}`, question, solution: `print(${expression})`, answer, tier: 'hard', kind: 'errorProne', family };
}

/** An error-prone question's expression as written (`239 x 91 + 4`): what a model that copies puts in `print(...)`. */
export function writtenExpression(p: Pick<Problem, 'question'>): string {
  return p.question.replace(/^what is /, '').replace(/\?$/, '');
}

export const ERROR_PRONE_FAMILIES = {
  timesProduct: (rng: Random) => {
    const a = rng.int(100, 999);
    const b = rng.int(10, 99);
    return problem('timesProduct', `${a} x ${b}`, `${a}*${b}`, a * b);
  },
  timesProductPlus: (rng: Random) => {
    const a = rng.int(100, 999);
    const b = rng.int(10, 99);
    const c = rng.int(1, 99);
    return problem('timesProductPlus', `${a} x ${b} + ${c}`, `${a}*${b}+${c}`, a * b + c);
  },
} satisfies Record<string, ProblemGenerator>;
