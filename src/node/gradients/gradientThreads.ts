/**
 * The CLI's gradient helpers (core/rl/gradientHelpers.ts): worker threads, each with its own tfjs on
 * the main thread's backend. A thread that fails or dies fails the job it was given and every later
 * one, with the reason, so the step fails and the trainer puts the run back where it was; the
 * threads never keep the process alive (Ctrl-C exits without closing them).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/umd/node-adapter';
import { helperEnd, type GradientHelper, type GradientHelperSet } from '../../core/rl/gradientHelpers';
import type { NodeBackend } from '../tfBackend';
import type { GradientHelperApi } from '../../core/rl/helperGradients';

/**
 * Threads for the update by default: every core, at most 4. The update and the rollouts take turns,
 * so the cores the Python workers use while the batch writes are idle while it learns.
 */
export function defaultUpdateThreads(): number {
  return Math.min(4, Math.max(1, availableParallelism()));
}

export interface GradientThreads extends GradientHelperSet {
  /** Chunks the threads computed so far, all together. */
  chunksDone(): number;
  close(): Promise<void>;
}

/** `count` threads on `backend`, each ready (its backend started) when this resolves; none left running if one cannot start. */
export async function startGradientThreads(count: number, backend: NodeBackend): Promise<GradientThreads> {
  const workers = Array.from({ length: count }, () => new Worker(new URL('./gradientThread.mjs', import.meta.url), { workerData: { backend } }));
  const ended = workers.map(endOf);
  const close = async () => {
    ended.forEach(({ end }) => end(new Error('the gradient threads were closed')));
    await Promise.all(workers.map((worker) => worker.terminate()));
  };
  let chunksDone = 0;
  const helperOver = async (worker: Worker, end: Promise<never>): Promise<GradientHelper> => {
    worker.unref();
    const remote = Comlink.wrap<GradientHelperApi>(nodeEndpoint(worker));
    await Promise.race([remote.ready(), end]);
    return {
      chunkGradients: async (model, chunks, config) => {
        const failed = (error: Error) => Promise.reject(new Error(`a gradient thread failed: ${error.message}`));
        const results = await Promise.race([remote.chunkGradients(model, chunks, config).catch(failed), end]);
        chunksDone += results.length;
        return results;
      },
    };
  };
  try {
    const helpers = await Promise.all(workers.map((worker, i) => helperOver(worker, ended[i].ended)));
    return { helpers, chunksDone: () => chunksDone, close };
  } catch (error) {
    await close();
    throw new Error(`a gradient thread could not start: ${(error as Error).message}`);
  }
}

/**
 * A promise that rejects when the thread fails, exits or is closed (terminate() alone tells a waiting
 * call nothing), and the function that closes it.
 */
function endOf(worker: Worker): ReturnType<typeof helperEnd> {
  const helper = helperEnd();
  worker.on('error', (error) => helper.end(new Error(`a gradient thread failed: ${error.message}`)));
  worker.on('exit', (code) => helper.end(new Error(`a gradient thread stopped (exit code ${code})`)));
  return helper;
}
