/**
 * The lab's gradient helpers (core/rl/gradientHelpers.ts): nested workers of the trainer worker
 * (gradientHelper.worker.ts), over comlink. A call to a worker that failed, died or was closed would
 * wait forever under comlink alone, so each call also rejects when its worker reports an error or
 * the helpers are closed, and the step fails (the trainer puts the run back) instead of hanging.
 */
import * as Comlink from 'comlink';
import { helperEnd, type GradientHelper, type GradientHelperSet } from '../core/rl/gradientHelpers';
import type { GradientHelperApi } from '../core/rl/helperGradients';

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
  const ended = workers.map(endOf);
  const close = () => {
    ended.forEach(({ end }) => end(new Error('the gradient helpers were closed')));
    workers.forEach((worker) => worker.terminate());
  };
  try {
    const helpers = await Promise.all(workers.map((worker, i) => helperOver(worker, ended[i].ended)));
    return { helpers, close };
  } catch (error) {
    close();
    throw new Error(`a gradient helper could not start: ${(error as Error).message}`);
  }
}

/**
 * A promise that rejects when the worker reports an error or is closed (terminate() alone tells a
 * waiting call nothing), and the function that closes it.
 */
function endOf(worker: Worker): ReturnType<typeof helperEnd> {
  const helper = helperEnd();
  worker.addEventListener('error', (event) => helper.end(new Error(`a gradient helper failed: ${event.message || 'the worker stopped'}`)));
  return helper;
}

async function helperOver(worker: Worker, ended: Promise<never>): Promise<GradientHelper> {
  const remote = Comlink.wrap<GradientHelperApi>(worker);
  await Promise.race([remote.ready(), ended]);
  return { chunkGradients: (model, chunks, config) => Promise.race([remote.chunkGradients(model, chunks, config), ended]) };
}
