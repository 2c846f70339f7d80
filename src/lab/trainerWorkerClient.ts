/**
 * The UI side of the trainer worker: starts `workers/trainer.worker.ts` as a dedicated module
 * worker (WebGPU is not available in shared workers) and wraps it with comlink. `init` proxies
 * the event callback, which comlink cannot send by value.
 */
import * as Comlink from 'comlink';
import type { BackendChoice, BackendInfo, LabEvent, TrainerWorkerApi } from './protocol';

export interface TrainerWorker {
  api: Comlink.Remote<TrainerWorkerApi>;
  init(options: { backend: BackendChoice; baseModelUrl: string }, onEvent: (event: LabEvent) => void): Promise<BackendInfo>;
  /** Ends the worker and everything in it (tfjs, the Python workers); changing backend starts a new one. */
  terminate(): void;
}

export function startTrainerWorker(): TrainerWorker {
  const worker = new Worker(new URL('../../workers/trainer.worker.ts', import.meta.url), { type: 'module', name: 'trainer' });
  const api = Comlink.wrap<TrainerWorkerApi>(worker);
  return {
    api,
    init: (options, onEvent) => api.init(options, Comlink.proxy(onEvent)),
    terminate: () => {
      api[Comlink.releaseProxy]();
      worker.terminate();
    },
  };
}
