/**
 * The chain kind's notebooks: a number halved one cell at a time, each cell copying the last
 * output, until the output is odd; sometimes the whole chain as one loop. Like every notebook, no
 * question, so no document shows the whole loop (question, code, output, answer).
 *
 * Each halving cell stores the result in `half`, a name no other snippet uses, as the multi-step
 * kind's first cell uses `number`: the cell just above an even output is then the cue for the next
 * halving. Measured at base stage 7's step 150 with `print(n//2)` cells: after one call with an even
 * output, the base model answered with that output, as the question's tool answer had taught it.
 */
import type { Random } from '../random';
import { chainStartOf, halvingSteps } from '../tasks/chainFamilies';
import type { Problem } from '../tasks/problem';
import { cell, closingSentence, line } from './notebookSessions';

/** Share of chain notebooks that run the loop in one cell instead of a cell per halving. */
export const HALVING_LOOP_SHARE = 0.1;

const EVEN_LINES = ['Still even.', 'Even, so halve again.', 'Halve it again.', ''];

/** The cell that halves `n`. */
export function halvingCode(n: number): string {
  return `half = ${n}//2\nprint(half)`;
}

/** A chain question's first call: its number halved once. */
export function halvingFirstCode(p: Pick<Problem, 'question'>): string {
  return halvingCode(chainStartOf(p));
}

/**
 * One cell per halving, each printing `n//2` for the n the cell above printed (`halvingCode`), then the closing
 * sentence on the odd value; or, at HALVING_LOOP_SHARE, the problem's loop in one cell.
 */
export function halvingSession(rng: Random, p: Problem, answerLineShare?: number): string {
  const start = chainStartOf(p);
  if (rng.next() < HALVING_LOOP_SHARE) return `${cell(p.solution, String(p.answer))}${closingSentence(rng, String(p.answer), answerLineShare)}`;
  let session = '';
  let n = start;
  for (const half of halvingSteps(start)) {
    if (n !== start) session += line(rng.pick(EVEN_LINES));
    session += cell(halvingCode(n), String(half));
    n = half;
  }
  return `${session}${closingSentence(rng, String(p.answer), answerLineShare)}`;
}
