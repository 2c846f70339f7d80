/**
 * Harness page for e2e/wasmThreads.spec.ts: each call starts a fresh module worker (built like the
 * trainer worker), runs the wasm backend there with the given thread setting, and ends it.
 * Exposed as `window.wasmThreadsHarness` for page.evaluate.
 */
import * as Comlink from 'comlink';
import type { MatMulCheck, TrainCheck, WasmStartReport, WasmThreadsWorkerApi, WorkloadTiming } from './wasmThreads.worker';

async function inWorker<T>(wasmThreads: number, work: (api: Comlink.Remote<WasmThreadsWorkerApi>) => Promise<T>): Promise<{ start: WasmStartReport; result: T }> {
  const worker = new Worker(new URL('./wasmThreads.worker.ts', import.meta.url), { type: 'module', name: 'wasm-threads' });
  const api = Comlink.wrap<WasmThreadsWorkerApi>(worker);
  try {
    const start = await api.start(wasmThreads);
    return { start, result: await work(api) };
  } finally {
    api[Comlink.releaseProxy]();
    worker.terminate();
  }
}

const harness = {
  check: (wasmThreads: number, trainSteps: number) =>
    inWorker(wasmThreads, async (api): Promise<{ matMul: MatMulCheck; train: TrainCheck }> => ({
      matMul: await api.matMulAgainstCpu(),
      train: await api.trainAgainstCpu(trainSteps),
    })),
  time: (wasmThreads: number, rounds: number) => inWorker(wasmThreads, (api): Promise<WorkloadTiming> => api.timeWorkload(rounds)),
};
export type WasmThreadsHarness = typeof harness;

declare global {
  interface Window {
    wasmThreadsHarness: WasmThreadsHarness;
  }
}

window.wasmThreadsHarness = harness;
