/**
 * The CLI's gradient helpers (core/rl/gradientHelpers.ts): worker threads, each with its own tfjs on
 * the main thread's backend. A thread that fails or dies fails the job it was given and every later
 * one, with the reason, so the step fails and the trainer puts the run back where it was; the
 * threads never keep the process alive (Ctrl-C exits without closing them).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ExperimentConfig } from '../../core/experiment';
import type { ChunkGradient, GradientHelper, GradientHelperSet, ModelWeights, WeightedChunk } from '../../core/rl/gradientHelpers';
import type { NodeBackend } from '../tfBackend';
import type { GradientJob, GradientReply, GradientThreadData } from './gradientMessages';

/**
 * Threads for the update by default: every core, at most 4. The update and the rollouts take turns,
 * so the cores the Python workers use while the batch writes are idle while it learns.
 */
export function defaultUpdateThreads(): number {
  return Math.min(4, Math.max(1, availableParallelism()));
}

class GradientThread implements GradientHelper {
  private readonly pending = new Map<number, { resolve: (results: ChunkGradient[]) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  private stopped: Error | null = null;
  /** Chunks whose gradients came back. */
  chunksDone = 0;

  constructor(private readonly worker: Worker) {
    worker.on('message', (reply: GradientReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if ('error' in reply) waiting.reject(new Error(`a gradient thread failed: ${reply.error}`));
      else {
        this.chunksDone += reply.results.length;
        waiting.resolve(reply.results);
      }
    });
    worker.on('error', (error) => this.stop(new Error(`a gradient thread failed: ${error.message}`)));
    worker.on('exit', (code) => this.stop(new Error(`a gradient thread stopped (exit code ${code})`)));
  }

  chunkGradients(model: ModelWeights, chunks: WeightedChunk[], config: ExperimentConfig): Promise<ChunkGradient[]> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, model, chunks, config } satisfies GradientJob);
    });
  }

  private stop(reason: Error): void {
    this.stopped ??= reason;
    for (const { reject } of this.pending.values()) reject(this.stopped);
    this.pending.clear();
  }

  close(): Promise<number> {
    this.stop(new Error('the gradient threads were closed'));
    return this.worker.terminate();
  }
}

export interface GradientThreads extends GradientHelperSet {
  /** Chunks the threads computed so far, all together. */
  chunksDone(): number;
  close(): Promise<void>;
}

/** `count` threads on `backend`, each ready (its backend started) when this resolves; none left running if one cannot start. */
export async function startGradientThreads(count: number, backend: NodeBackend): Promise<GradientThreads> {
  const started = await Promise.allSettled(Array.from({ length: count }, () => startThread({ backend })));
  const threads = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const close = async () => {
    await Promise.all(threads.map((thread) => thread.close()));
  };
  const failure = started.find((result) => result.status === 'rejected');
  if (failure) {
    await close();
    throw failure.reason;
  }
  return { helpers: threads, chunksDone: () => threads.reduce((n, thread) => n + thread.chunksDone, 0), close };
}

function startThread(data: GradientThreadData): Promise<GradientThread> {
  const worker = new Worker(new URL('./gradientThread.mjs', import.meta.url), { workerData: data });
  worker.unref();
  return new Promise((resolve, reject) => {
    const failed = (why: string) => {
      void worker.terminate();
      reject(new Error(`a gradient thread could not start: ${why}`));
    };
    const onError = (error: Error) => failed(error.message);
    const onExit = (code: number) => failed(`it exited (code ${code})`);
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.once('message', () => {
      worker.off('error', onError);
      worker.off('exit', onExit);
      resolve(new GradientThread(worker));
    });
  });
}
