/**
 * The 'progress' event for long work, with an ETA from the mean time per finished item so far
 * (null until one item is done, since there is nothing to extrapolate from).
 */
import type { LabEvent } from './protocol';

export type ProgressEvent = Extract<LabEvent, { type: 'progress' }>;

export function progressEvent(
  task: ProgressEvent['task'],
  done: number,
  total: number,
  elapsedMs: number,
  detail?: string,
): ProgressEvent {
  const etaSeconds = done > 0 ? ((elapsedMs / done) * Math.max(total - done, 0)) / 1000 : null;
  return detail === undefined ? { type: 'progress', task, done, total, etaSeconds } : { type: 'progress', task, done, total, etaSeconds, detail };
}
