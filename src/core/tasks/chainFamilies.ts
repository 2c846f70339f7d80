/**
 * Chain: a number halved until it is odd. Its ideal tool solution is one call per halving, each
 * copying the last output (`print(6784//2)` -> `3392`, then `print(3392//2)` ...), and the depth d,
 * the number of halvings, is 1 to 5, so a run's call budget decides which chains it can finish
 * step by step. Whether to call again is read off the last output alone (an even last digit), so a
 * tiny model can learn when to stop; one program with a loop does every step in a single call, so
 * whether RL settles on one call or several is the model's own finding.
 */
import type { Random } from '../random';
import type { Problem, ProblemGenerator } from './problem';
import { pickWeighted } from './weightedChoice';

/** Depths 1-5 with falling shares, so the expected gain of one more allowed call shrinks past four. */
export const CHAIN_DEPTH_SHARES: Record<'1' | '2' | '3' | '4' | '5', number> = { 1: 0.4, 2: 0.25, 3: 0.18, 4: 0.12, 5: 0.05 };
const DEPTHS = ['1', '2', '3', '4', '5'] as const;

/** The question's number: an odd number times 2^depth, four or five digits at every depth. */
function chainStart(rng: Random, depth: number): { start: number; odd: number } {
  const scale = 2 ** depth;
  const low = Math.ceil(1000 / scale);
  const high = Math.floor(99_999 / scale);
  const odd = 2 * rng.int(Math.ceil((low - 1) / 2), Math.floor((high - 1) / 2)) + 1;
  return { start: odd * scale, odd };
}

/** The outputs of the step-by-step solution: start/2, start/4, ..., down to the odd answer. */
export function halvingSteps(start: number): number[] {
  const steps: number[] = [];
  for (let n = start; n % 2 === 0 && n > 0; n /= 2) steps.push(n / 2);
  return steps;
}

/** The number a chain question starts from (`6784` of `what is left when 6784 is halved until odd?`). */
export function chainStartOf(p: Pick<Problem, 'question'>): number {
  const match = /^what is left when (\d+) is halved until odd\?$/.exec(p.question);
  if (!match) throw new Error(`not a chain question: ${p.question}`);
  return Number(match[1]);
}

export const CHAIN_FAMILIES = {
  halving: (rng: Random): Problem => {
    const depth = Number(pickWeighted(rng, CHAIN_DEPTH_SHARES, DEPTHS));
    const { start, odd } = chainStart(rng, depth);
    const question = `what is left when ${start} is halved until odd?`;
    return {
      id: `halving:${question}`,
      question,
      solution: `n = ${start}\nwhile n % 2 == 0:\n    n //= 2\nprint(n)`,
      answer: odd,
      tier: 'hard',
      kind: 'chain',
      family: 'halving',
      depth,
    };
  },
} satisfies Record<string, ProblemGenerator>;
