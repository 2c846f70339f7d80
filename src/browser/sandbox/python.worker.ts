/// <reference types="vite/client" />
/**
 * The Python worker: one Pyodide interpreter in a dedicated module worker. It first checks how it
 * is served (cross-origin isolated, its CSP in force) and refuses to load Pyodide otherwise; then it
 * loads Pyodide from the app's own origin, removes the network globals, and runs one program per
 * request on a private port, each from the same baseline (interpreterIsolation.mjs). The boundary
 * is this worker plus the CSP its script is served with (vite.config.ts): no eval, no connections
 * but to the app's origin. The runner's import guard is only a guard.
 */
import type { loadPyodide as LoadPyodide } from 'pyodide';
import { hookPyodideInstantiation, IsolatedRunner, settleSnapshotStart, snapshotLoadOptions } from '../../core/sandbox/interpreterIsolation.mjs';
import { PYTHON_RUNNER_SOURCE } from '../../core/sandbox/pythonRunner';
import { hostingProblems } from './hostingRequirements';
import type { HostingReport, InitMessage, ProbeMessage, RunRequest, WorkerReply } from './workerMessages';

const scope = self as unknown as DedicatedWorkerGlobalScope;

/**
 * What a worker could use to reach the network, start more code, or touch the app's storage
 * (IndexedDB, Cache Storage, navigator.storage's private file system); removed once Pyodide is in.
 */
const NETWORK_GLOBALS = [
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'WebSocketStream',
  'EventSource',
  'WebTransport',
  'importScripts',
  'Worker',
  'SharedWorker',
  'BroadcastChannel',
  'indexedDB',
  'caches',
  'navigator',
];

/**
 * Deletes each name wherever it lives on the global's prototype chain (fetch sits on
 * WorkerGlobalScope.prototype) and returns the names still reachable, which must be none.
 */
function removeNetworkGlobals(): string[] {
  for (let target: object | null = scope; target; target = Object.getPrototypeOf(target)) {
    for (const name of NETWORK_GLOBALS) {
      if (Object.prototype.hasOwnProperty.call(target, name)) Reflect.deleteProperty(target, name);
    }
  }
  return NETWORK_GLOBALS.filter((name) => name in scope);
}

function pyodideIndexURL(): string {
  return new URL(`${import.meta.env.BASE_URL}pyodide/`, scope.location.href).href;
}

async function startRunner(init: InitMessage, interruptBuffer: SharedArrayBuffer, reply: (message: WorkerReply, transfer?: Transferable[]) => void): Promise<IsolatedRunner> {
  const indexURL = pyodideIndexURL();
  const hook = hookPyodideInstantiation({ heapLimitBytes: init.heapLimitBytes });
  try {
    // Loaded from public/pyodide like the rest of the runtime, so the bundle carries none of its Node paths.
    const { loadPyodide } = (await import(/* @vite-ignore */ `${indexURL}pyodide.mjs`)) as { loadPyodide: typeof LoadPyodide };
    const pyodide = await loadPyodide({
      indexURL,
      jsglobals: Object.create(null), // `import js` finds nothing of the worker's globals
      env: { HOME: '/home/pyodide', PYTHONHASHSEED: '0' }, // set and dict order the same in every interpreter
      stdout: () => {},
      stderr: () => {},
      // Pyodide's memory right after a load, made by the pool's first worker before any program ran
      // there (workerInterpreter.ts): a restart from it takes about half a load's time and CPU.
      ...snapshotLoadOptions(init.memorySnapshot),
    });
    const { made, spare } = settleSnapshotStart(pyodide, init.memorySnapshot);
    if (made) reply({ type: 'memorySnapshot', bytes: made }, [made.buffer]);
    return IsolatedRunner.start(pyodide, hook, {
      runnerSource: PYTHON_RUNNER_SOURCE,
      interruptBuffer: new Uint8Array(interruptBuffer),
      fileBytesPerRun: init.fileBytesPerRun,
      spare,
    });
  } finally {
    hook.release();
  }
}

/** How this worker is served, measured here: the CSP that matters is the one on this script. */
function hostingReport(): HostingReport {
  let codeGenerationBlocked = false;
  try {
    new Function('return 0');
  } catch {
    codeGenerationBlocked = true;
  }
  return { crossOriginIsolated: scope.crossOriginIsolated, codeGenerationBlocked };
}

async function serve(init: InitMessage): Promise<void> {
  const { port } = init;
  const reply = (message: WorkerReply, transfer: Transferable[] = []) => port.postMessage(message, transfer);
  // No silent weak mode: without the headers, model code does not run here at all (docs/hosting.md).
  const problems = hostingProblems(hostingReport());
  if (problems.length > 0 || !init.interruptBuffer) {
    reply({ type: 'loadFailed', message: `refusing to run Python: ${problems.join('; ') || 'no interrupt buffer'}` });
    return;
  }
  let runner: IsolatedRunner;
  try {
    runner = await startRunner(init, init.interruptBuffer, reply);
  } catch (error) {
    reply({ type: 'loadFailed', message: String(error) });
    return;
  }
  const kept = removeNetworkGlobals();
  if (kept.length > 0) {
    // Fail closed: a browser that will not let these go gets no sandbox rather than a leaky one.
    reply({ type: 'loadFailed', message: `could not remove ${kept.join(', ')} from the worker` });
    return;
  }
  port.onmessage = ({ data }: MessageEvent<RunRequest>) => {
    const result = runner.run(data.code, data.maxOutputBytes);
    reply({ type: 'result', id: data.id, ...result });
    // After the reply, so the page does not wait for it; the next request waits its turn.
    runner.reset();
  };
  reply({ type: 'ready', restored: init.memorySnapshot !== null && 'load' in init.memorySnapshot });
}

scope.addEventListener(
  'message',
  (event: MessageEvent<InitMessage | ProbeMessage>) => {
    if (event.data.type === 'probe') scope.postMessage(hostingReport());
    else void serve(event.data);
  },
  { once: true },
);
