/// <reference types="vite/client" />
/**
 * The Python worker: one Pyodide interpreter in a dedicated module worker. It loads Pyodide from the
 * app's own origin, removes the network globals, then runs the shared Python runner
 * (src/core/sandbox/pythonRunner.ts) once per request on a private port. The boundary is this
 * worker plus the CSP its script is served with (vite.config.ts): no eval, no connections but to
 * the app's origin. The runner's import guard is only a guard.
 */
import type { loadPyodide as LoadPyodide } from 'pyodide';
import { PYTHON_RUNNER_SOURCE } from '../src/core/sandbox/pythonRunner';
import type { InitMessage, RunRequest, WorkerReply } from '../src/browser/sandbox/workerMessages';

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

/**
 * Wasm memory only grows (to 4 GiB, inside the page's renderer): refusing growth past the cap turns
 * a memory bomb into a Python MemoryError. Emscripten grows the heap through this JS method.
 */
function capHeap(limitBytes: number): void {
  const grow = WebAssembly.Memory.prototype.grow;
  WebAssembly.Memory.prototype.grow = function (this: WebAssembly.Memory, pages: number) {
    if (this.buffer.byteLength + pages * 65536 > limitBytes) throw new RangeError('sandbox heap limit');
    return grow.call(this, pages);
  };
}

function pyodideIndexURL(): string {
  return new URL(`${import.meta.env.BASE_URL}pyodide/`, scope.location.href).href;
}

type Runner = (code: string, maxOutputBytes: number) => string;

async function startRunner(interruptBuffer: SharedArrayBuffer | null): Promise<{ runner: Runner; heapBytes: () => number }> {
  const indexURL = pyodideIndexURL();
  // Loaded from public/pyodide like the rest of the runtime, so the bundle carries none of its Node paths.
  const { loadPyodide } = (await import(/* @vite-ignore */ `${indexURL}pyodide.mjs`)) as { loadPyodide: typeof LoadPyodide };
  const discard = (buffer: Uint8Array) => buffer.length;
  const pyodide = await loadPyodide({
    indexURL,
    jsglobals: Object.create(null), // `import js` finds nothing of the worker's globals
    env: { HOME: '/home/pyodide' },
    stdout: () => {},
    stderr: () => {},
  });
  pyodide.setStdout({ write: discard }); // the runner captures sys.stdout; fd-level writes are dropped
  pyodide.setStderr({ write: discard });
  pyodide.setStdin({ error: true });
  if (interruptBuffer) pyodide.setInterruptBuffer(new Uint8Array(interruptBuffer));
  const runner = pyodide.runPython(PYTHON_RUNNER_SOURCE, { globals: pyodide.toPy({}) }) as Runner;
  // A private field, but the only view of the heap that a memory bomb leaves behind.
  const module = (pyodide as unknown as { _module: { HEAP8: Int8Array } })._module;
  return { runner, heapBytes: () => module.HEAP8.length };
}

async function serve(init: InitMessage): Promise<void> {
  const { port } = init;
  const reply = (message: WorkerReply) => port.postMessage(message);
  capHeap(init.heapLimitBytes);
  let started: Awaited<ReturnType<typeof startRunner>>;
  try {
    started = await startRunner(init.interruptBuffer);
  } catch (error) {
    reply({ type: 'loadFailed', message: String(error) });
    return;
  }
  const { runner, heapBytes } = started;
  const kept = removeNetworkGlobals();
  if (kept.length > 0) {
    // Fail closed: a browser that will not let these go gets no sandbox rather than a leaky one.
    reply({ type: 'loadFailed', message: `could not remove ${kept.join(', ')} from the worker` });
    return;
  }
  port.onmessage = ({ data }: MessageEvent<RunRequest>) => {
    try {
      reply({ type: 'result', id: data.id, output: runner(data.code, data.maxOutputBytes), heapBytes: heapBytes() });
    } catch (error) {
      // A fatal Pyodide error (a CSP-blocked eval via ctypes, a wasm trap) or a broken runner: unusable.
      reply({ type: 'result', id: data.id, failure: String(error).slice(0, 2000), heapBytes: heapBytes() });
    }
  };
  reply({ type: 'ready' });
}

scope.addEventListener('message', (event: MessageEvent<InitMessage>) => void serve(event.data), { once: true });
