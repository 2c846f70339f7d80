/**
 * Chain: a number divided by 7 for as long as 7 divides it. Its step-by-step tool solution is one
 * call per division, each copying the last output (`q = 16807` / `print(q//7, q%7==0)` ->
 * `2401 True`, then `q = 2401` ...), and one more whose `False` shows that 7 no longer divides
 * what is left; the depth d, the number of divisions, is 1 to 5, so a run's call budget decides
 * which chains it can finish step by step (or, with the budget spent after d calls, answer on
 * trust). One program with a loop does every step in a single call, so whether RL settles on one
 * call or several is the model's own finding.
 *
 * Why 7 and not halving (base stage 8's first try): the base model learned from the corpus's
 * outputs to halve a number in its head (38 of 40 held-out starts, greedy), since each digit of a
 * half depends on the digit before it alone; so a run evaluated at Nmax 2 wrote a third halving's
 * output itself and solved 93% of depth-3 chains, and a call past the second paid nothing. A digit
 * of a quotient by 7 depends on the remainder of everything before it.
 */
import type { Random } from '../random';
import type { Problem, ProblemGenerator } from './problem';
import { pickWeighted } from './weightedChoice';

/** The divisor every chain divides by. */
export const CHAIN_DIVISOR = 7;

/** Depths 1-5 with falling shares, so the expected gain of one more allowed call shrinks past four. */
export const CHAIN_DEPTH_SHARES: Record<'1' | '2' | '3' | '4' | '5', number> = { 1: 0.4, 2: 0.25, 3: 0.18, 4: 0.12, 5: 0.05 };
const DEPTHS = ['1', '2', '3', '4', '5'] as const;

/** The question's number: k times 7^depth, k not a multiple of 7, five or six digits at every depth. */
function chainStart(rng: Random, depth: number): { start: number; left: number } {
  const scale = CHAIN_DIVISOR ** depth;
  const low = Math.ceil(10_000 / scale);
  const high = Math.floor(999_999 / scale);
  let left = rng.int(low, high);
  while (left % CHAIN_DIVISOR === 0) left = rng.int(low, high);
  return { start: left * scale, left };
}

/** The outputs of the step-by-step solution: start/7, start/49, ..., down to the answer. */
export function chainSteps(start: number): number[] {
  const steps: number[] = [];
  for (let n = start; n % CHAIN_DIVISOR === 0 && n > 0; n /= CHAIN_DIVISOR) steps.push(n / CHAIN_DIVISOR);
  return steps;
}

const QUESTION = /^what is left when (\d+) is divided by 7 until 7 no longer divides it\?$/;

/** The number a chain question starts from (`16807` of `what is left when 16807 is divided by 7 until 7 no longer divides it?`). */
export function chainStartOf(p: Pick<Problem, 'question'>): number {
  const match = QUESTION.exec(p.question);
  if (!match) throw new Error(`not a chain question: ${p.question}`);
  return Number(match[1]);
}

export const CHAIN_FAMILIES = {
  sevens: (rng: Random): Problem => {
    const depth = Number(pickWeighted(rng, CHAIN_DEPTH_SHARES, DEPTHS));
    const { start, left } = chainStart(rng, depth);
    const question = `what is left when ${start} is divided by 7 until 7 no longer divides it?`;
    return {
      id: `sevens:${question}`,
      question,
      solution: `n = ${start}\nwhile n % 7 == 0:\n    n //= 7\nprint(n)`,
      answer: left,
      tier: 'hard',
      kind: 'chain',
      family: 'sevens',
      depth,
    };
  },
} satisfies Record<string, ProblemGenerator>;
