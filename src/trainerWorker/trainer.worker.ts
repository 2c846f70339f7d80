/**
 * The trainer worker: tfjs and the engine off the UI thread. A thin adapter that wires the
 * browser's pieces (backend choice, checkpoint fetch, and two sets of nested workers: the Python
 * sandbox pool and the update's gradient helpers) into the lab's TrainerWorkerApi and exposes it
 * with comlink.
 */
import * as Comlink from 'comlink';
import { fetchCheckpoint } from '../browser/checkpointFetch';
import { createBrowserSandbox } from '../browser/sandbox/createBrowserSandbox';
import { chooseBackend } from '../browser/tf/chooseBackend';
import { gradientWorkerCount, startGradientWorkers } from '../browser/gradientWorkers';
import { defaultWasmThreads, registerBrowserBackends } from '../browser/tf/registerBrowserBackends';
import type { TrainerWorkerApi } from './protocol';
import { createTrainerApi } from './trainerApi';
import { TRAINER_WORKER_NAMES } from './trainerWorkerName';

// A sweep arm's worker trains beside other arms' workers: one wasm thread each (sweepLanes.ts), and
// no gradient helpers, since the other arms use the cores it would.
const sweepArm = self.name === TRAINER_WORKER_NAMES.sweepArm;
registerBrowserBackends(sweepArm ? { wasmThreads: 1 } : {});

// Two Python workers run a step's code calls side by side; one more waits warm to replace a killed one.
const SANDBOX_POOL = { size: 2, standby: 1 };

const api: TrainerWorkerApi = createTrainerApi({
  chooseBackend: (choice) => chooseBackend(choice),
  loadCheckpoint: (url) => fetchCheckpoint(url),
  createSandbox: async (emit) => {
    const pool = createBrowserSandbox({ pool: SANDBOX_POOL });
    // Load Pyodide now, beside the first evaluation, rather than at the model's first code call.
    pool.warmUp().then(
      () => console.info(`Python sandbox ready: ${SANDBOX_POOL.size} interpreters + ${SANDBOX_POOL.standby} standby`),
      (error: Error) => emit({ type: 'error', message: `the Python sandbox could not start: ${error.message}` }),
    );
    return pool;
  },
  startGradientHelpers: async (backend) => {
    const count = backend === 'wasm' && !sweepArm ? gradientWorkerCount(navigator.hardwareConcurrency || 1, defaultWasmThreads()) : 0;
    return count === 0 ? { helpers: [], close: () => undefined } : startGradientWorkers(count);
  },
});

Comlink.expose(api);
