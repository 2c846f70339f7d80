/**
 * Time left in a run. A step's own figures (generate + execute + update) leave out what happens
 * between steps (the held-out test every few steps, checkpoints, events, redraws): an ETA from
 * them ran 30-45% low. The wall time between the steps' arrivals includes all of it.
 */

/** When each step was seen, in ms (performance.now()), oldest first; the newest few are kept. */
export interface StepArrival {
  step: number;
  at: number;
}

export const ARRIVALS_KEPT = 11;

/** Seconds left: the mean wall time per step over the kept arrivals, times the steps to go; null with fewer than two. */
export function etaFromArrivals(arrivals: StepArrival[], totalSteps: number): number | null {
  if (arrivals.length < 2) return null;
  const first = arrivals[0];
  const last = arrivals[arrivals.length - 1];
  const steps = last.step - first.step;
  if (steps <= 0) return null;
  const perStep = (last.at - first.at) / 1000 / steps;
  return perStep * Math.max(0, totalSteps - last.step);
}

/** The arrivals with a newly seen step; a step that did not advance (a reload, a reset) starts over. */
export function withArrival(arrivals: StepArrival[], step: number, at: number): StepArrival[] {
  const last = arrivals[arrivals.length - 1];
  if (last && step <= last.step) return [{ step, at }];
  return [...arrivals, { step, at }].slice(-ARRIVALS_KEPT);
}
