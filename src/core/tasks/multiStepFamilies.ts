/**
 * Multi-step: a computation whose second step works on the first one's result. The first step is
 * an expression the model can copy (`print(347*29)`); the second, the digit sum of what that
 * printed, is easy to write once the digits are in front of the model (`print(1+0+0+6+3)`, copied
 * from the output) and hard to write as one program (`sum(int(d) for d in str(...))`, which the
 * base model does not get right). So a second call pays, even after RL (issue 11's 1 -> 2 gain).
 */
import type { Random } from '../random';
import type { Problem, ProblemGenerator } from './problem';

function digitSum(n: number): number {
  return [...String(n)].reduce((sum, digit) => sum + Number(digit), 0);
}

function problem(family: string, expression: string, value: number): Problem {
  const question = `what is the digit sum of ${expression}?`;
  return {
    id: `${family}:${question}`,
    question,
    solution: `print(sum(int(d) for d in str(${expression})))`,
    answer: digitSum(value),
    tier: 'hard',
    kind: 'multiStep',
    family,
  };
}

/** The expression a multi-step question's first step computes (`347*29` of `...digit sum of 347*29?`). */
export function firstStepExpression(p: Pick<Problem, 'question'>): string {
  const match = /digit sum of (.+)\?$/.exec(p.question);
  if (!match) throw new Error(`not a multi-step question: ${p.question}`);
  return match[1];
}

/** The value the first step prints. Its operands are small, so JS arithmetic equals Python's. */
export function firstStepValue(p: Pick<Problem, 'question'>): number {
  const [a, op, b] = firstStepExpression(p).split(/([*+])/);
  return op === '*' ? Number(a) * Number(b) : Number(a) + Number(b);
}

export const MULTI_STEP_FAMILIES = {
  productDigitSum: (rng: Random) => {
    const a = rng.int(100, 999);
    const b = rng.int(10, 99);
    return problem('productDigitSum', `${a}*${b}`, a * b);
  },
  sumDigitSum: (rng: Random) => {
    const a = rng.int(1000, 9999);
    const b = rng.int(1000, 9999);
    return problem('sumDigitSum', `${a}+${b}`, a + b);
  },
} satisfies Record<string, ProblemGenerator>;
