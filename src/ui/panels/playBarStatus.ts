/** The play bar's status line: what the lab is doing now, in words. */
import type { RunStatus } from '../../trainerWorker/protocol';

export interface PlayBarNow {
  worker: 'starting' | 'ready' | 'failed';
  /** A command in flight, e.g. 'Starting run'. */
  busy: string | null;
  /** The shown run's status, null without a run. */
  runStatus: RunStatus | null;
  /** A slow motion step is open: the run's own status still reads idle meanwhile. */
  slowMotion: boolean;
}

export function playBarStatus({ worker, busy, runStatus, slowMotion }: PlayBarNow): string {
  if (busy !== null) return busy;
  if (worker === 'failed') return 'the trainer did not start: see the message above';
  if (slowMotion) return 'slow motion step: one stage at a time';
  if (runStatus !== null) return runStatus;
  return worker === 'ready' ? 'no run yet: press Train' : 'starting the trainer…';
}
