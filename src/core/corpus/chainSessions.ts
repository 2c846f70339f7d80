/**
 * The chain kind's notebooks: a number divided by 7 one cell at a time, each cell copying the last
 * output, until 7 no longer divides it; sometimes the whole chain as one loop. Like every notebook,
 * no question, so no document shows the whole loop (question, code, output, answer).
 *
 * Each cell stores the quotient in `q`, a name no other snippet uses, as the multi-step kind's
 * first cell uses `number`: the cell just above an output is then the cue for the next division.
 * Measured at base stage 7's step 150 with `print(n//2)` cells (the chains then halved): after one
 * call, the base model answered with that output, as the question's tool answer had taught it.
 *
 * The cell also prints whether 7 still divides the quotient (`2401 True`), so the output itself
 * says whether to go on. With the number alone (halving, stage 7), RL from the base model still
 * stopped at even outputs and went on after odd ones at step 60 of the ablation preset; with the
 * flag (halving, stage 8's first try, 100 steps), the base model went on after all 93 held-out
 * outputs that called for it and answered after all 66 that did not (greedy).
 *
 * That certainty is why the training budget could not change how far the model divides (issue 22):
 * every Nmax arm went on after every `True`. With a stop share (base stage 9) a session sometimes
 * closes on a quotient that still says `True`, so the base is unsure whether to go on, and whether
 * another call pays is left for RL to find.
 */
import type { Random } from '../random';
import { chainStartOf, chainSteps, CHAIN_DIVISOR } from '../tasks/chainFamilies';
import type { Problem } from '../tasks/problem';
import { cell, closingSentence } from './notebookSessions';

/** Share of chain notebooks that run the loop in one cell instead of a cell per division. */
export const CHAIN_LOOP_SHARE = 0.1;

/** The cell that divides `n` by 7 and says whether 7 still divides the quotient. */
export function divisionCode(n: number): string {
  return `q = ${n}//7\nprint(q, q%7==0)`;
}

/** What `divisionCode(n)` prints, as Python prints it: the quotient, then True while 7 divides it. */
export function divisionOutput(n: number): string {
  const q = Math.floor(n / CHAIN_DIVISOR);
  return `${q} ${q % CHAIN_DIVISOR === 0 ? 'True' : 'False'}`;
}

/** A chain question's first call: its number divided once. */
export function chainFirstCode(p: Pick<Problem, 'question'>): string {
  return divisionCode(chainStartOf(p));
}

/**
 * One cell per division, each dividing the n the cell above printed (`divisionCode`), then the
 * closing sentence on the last quotient; or, at CHAIN_LOOP_SHARE, the problem's loop in one cell.
 * No words between the cells: a depth-5 chain's five cells must fit the presets' response cap.
 * With `stopShare`, after each output that says `True` the session closes there on that quotient
 * at that rate; without it no number is drawn, so a recipe without it draws what it drew before.
 */
export function chainSession(rng: Random, p: Problem, answerLineShare?: number, stopShare?: number): string {
  if (rng.next() < CHAIN_LOOP_SHARE) return `${cell(p.solution, String(p.answer))}${closingSentence(rng, String(p.answer), answerLineShare)}`;
  let n = chainStartOf(p);
  let session = '';
  for (const q of chainSteps(n)) {
    session += cell(divisionCode(n), divisionOutput(n));
    n = q;
    if (n % CHAIN_DIVISOR === 0 && stopShare !== undefined && rng.next() < stopShare) break;
  }
  return `${session}${closingSentence(rng, String(n), answerLineShare)}`;
}
