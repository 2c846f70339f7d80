/**
 * A run's status once its training has stopped. Events and command replies travel on different
 * channels (comlink's reply and the proxied event callback), so the status event that ends a run can
 * trail train()'s reply: it gets a moment to arrive.
 */
import type { RunStatus } from '../../trainerWorker/protocol';
import type { LabStore } from '../state/labStore';

/** How long a trailing status event gets. */
const STATUS_SETTLE_MS = 3000;

export function settledStatus(store: LabStore, runId: string): Promise<RunStatus | undefined> {
  const stopped = (status: RunStatus | undefined) => (status === 'training' ? undefined : status);
  const now = stopped(store.getState().runs[runId]?.status);
  if (now) return Promise.resolve(now);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      unsubscribe();
      resolve(store.getState().runs[runId]?.status);
    }, STATUS_SETTLE_MS);
    const unsubscribe = store.subscribe((s) => {
      const status = stopped(s.runs[runId]?.status);
      if (status) {
        clearTimeout(timer);
        unsubscribe();
        resolve(status);
      }
    });
  });
}
