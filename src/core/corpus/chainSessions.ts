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
 * The cell also prints whether 7 divided the number it divided (`2401 True`), so the output says
 * whether to go on: with the number alone (halving, stage 7), RL from the base model still stopped
 * at even outputs and went on after odd ones at step 60 of the ablation preset.
 *
 * Stages 8 and 9 printed whether 7 still divides the quotient, which told the model, before the next
 * call, that another was needed: after a `True` the answer was surely not reached, so stopping there
 * and going on past the budget both earned 0, and no reward told an arm trained at Nmax 2 from one
 * trained at 4 (issue 22). With the check on the number divided (stage 10), the quotient after a
 * `True` may be the answer: one more call shows it (`1066 False`: 7 did not divide 7468, the
 * answer), and a model whose budget is spent can answer the quotient on trust and be right as often
 * as chains end there. A session closes after a `False` on the number that cell divided, or after a
 * `True` at the stop share on the quotient (stages 9 and 10), so the base is unsure whether to check.
 */
import type { Random } from '../random';
import { chainStartOf, CHAIN_DIVISOR } from '../tasks/chainFamilies';
import type { Problem } from '../tasks/problem';
import { cell, closingSentence } from './notebookSessions';

/** Share of chain notebooks that run the loop in one cell instead of a cell per division. */
export const CHAIN_LOOP_SHARE = 0.1;

/**
 * The cell that divides `n` by 7 and says whether 7 divided `n`: the check is on the number divided,
 * not the quotient. `n` is written once (stage 11): with `q = N//7` / `print(q, N%7==0)` (stage 10)
 * the Nmax 8 arm miscopied short quotients in the second copy (`131` for `13`) and solved 0-10% of
 * the depth-5 chains; with one copy, a quarter (`docs/tasks.md`).
 */
export function divisionCode(n: number): string {
  return `q = ${n}\nprint(q//7, q%7==0)`;
}

/** What `divisionCode(n)` prints, as Python prints it: the quotient, then True when 7 divided `n`. */
export function divisionOutput(n: number): string {
  return `${Math.floor(n / CHAIN_DIVISOR)} ${n % CHAIN_DIVISOR === 0 ? 'True' : 'False'}`;
}

/** A chain question's first call: its number divided once. */
export function chainFirstCode(p: Pick<Problem, 'question'>): string {
  return divisionCode(chainStartOf(p));
}

/**
 * One cell per division, each dividing the n the cell above printed (`divisionCode`), until a cell
 * says 7 did not divide its n, then the closing sentence on that n; or, at CHAIN_LOOP_SHARE, the
 * problem's loop in one cell.
 * No words between the cells: a depth-5 chain's cells must fit the presets' response cap.
 * With `stopShare`, after each output that says `True` the session closes there on that quotient
 * at that rate; without it no number is drawn, so a recipe without it draws what it drew before.
 */
export function chainSession(rng: Random, p: Problem, answerLineShare?: number, stopShare?: number): string {
  if (rng.next() < CHAIN_LOOP_SHARE) return `${cell(p.solution, String(p.answer))}${closingSentence(rng, String(p.answer), answerLineShare)}`;
  let n = chainStartOf(p);
  let session = '';
  for (;;) {
    session += cell(divisionCode(n), divisionOutput(n));
    if (n % CHAIN_DIVISOR !== 0) break;
    n /= CHAIN_DIVISOR;
    if (stopShare !== undefined && rng.next() < stopShare) break;
  }
  return `${session}${closingSentence(rng, String(n), answerLineShare)}`;
}
