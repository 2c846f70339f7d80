/**
 * The lab's gradient helpers (core/rl/gradientHelpers.ts): nested workers of the trainer worker
 * (gradientHelper.worker.ts), over comlink. A call to a worker that failed or died would
 * wait forever under comlink alone, so each call also rejects when its worker reports an error, and
 * the step fails (the trainer puts the run back) instead of hanging.
 */
import * as Comlink from 'comlink';
import type { GradientHelper, GradientHelperSet } from '../core/rl/gradientHelpers';
import type { GradientHelperWorkerApi } from './gradientHelper.worker';


/**
 * Helpers for the trainer worker on wasm: the logical cores its own wasm threads leave, at most 3.
 * The update and the rollouts take turns, so the cores the Python workers and the page use while the
 * batch writes are idle while it learns.
 */
export function gradientWorkerCount(cores: number, trainerThreads: number): number {
  return Math.max(0, Math.min(3, cores - trainerThreads));
}

/** `count` helper workers, each with its backend started; none left running if one cannot start. */
export async function startGradientWorkers(count: number): Promise<GradientHelperSet> {
  const workers = Array.from({ length: count }, () => new Worker(new URL('./gradientHelper.worker.ts', import.meta.url), { type: 'module', name: 'gradient helper' }));
  const close = () => workers.forEach((worker) => worker.terminate());
  try {
    const helpers = await Promise.all(workers.map(helperOver));
    return { helpers, close };
  } catch (error) {
    close();
    throw new Error(`a gradient helper could not start: ${(error as Error).message}`);
  }
}

async function helperOver(worker: Worker): Promise<GradientHelper> {
  const remote = Comlink.wrap<GradientHelperWorkerApi>(worker);
  const failed = new Promise<never>((_, reject) => {
    worker.addEventListener('error', (event) => reject(new Error(`a gradient helper failed: ${event.message || 'the worker stopped'}`)));
  });
  // A failure with no call waiting is not an unhandled rejection: the next call sees it.
  failed.catch(() => undefined);
  await Promise.race([remote.ready(), failed]);
  return { chunkGradients: (model, chunks, config) => Promise.race([remote.chunkGradients(model, chunks, config), failed]) };
}
