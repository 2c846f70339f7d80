/// <reference types="vite/client" />
/**
 * Starts tfjs's threaded + SIMD wasm build so that it also works in a minified build.
 *
 * tfjs's own start (backend_wasm.ts `init`) gives emscripten's thread workers the text of the
 * module factory, `factory.toString()`, as the script they load (`mainScriptUrlOrBlob`). That text
 * is cut out of its closure, so it runs only if no bundler touched the names it shares with the
 * closure. Vite's minifier does: it renames the closure's `_scriptDir` to a short name and, since
 * that name is declared, rewrites the guard `typeof _scriptDir !== "undefined"` to `e !== void 0`.
 * In a thread worker nothing declares `e`, so each one throws `ReferenceError: e is not defined`,
 * never reports "loaded", and the backend waits for them forever. (tfjs #4539 and emscripten #12832
 * discuss the same stringified-factory design.)
 *
 * Here the thread workers load emscripten's glue from its own file instead: Vite emits
 * `wasm-out/tfjs-backend-wasm-threaded-simd.js` as an asset, byte for byte (`?url`), and the
 * factory is called directly with that URL. The page or worker that owns the backend runs the
 * bundled (minified) copy of the same glue; the two talk through string-keyed messages only.
 */
import { BackendWasm, setThreadsCount } from '@tensorflow/tfjs-backend-wasm';
import createThreadedSimdModule from '@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm-threaded-simd.js';
import threadedSimdGlueUrl from '@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm-threaded-simd.js?url';
import { wasmWorkerContents } from '@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm-threaded-simd.worker.js';
import threadedSimdWasmUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url';

/** Emscripten's cwrap for the number-only C functions used here (its types are not loaded: tsconfig `types`). */
type EmscriptenCwrap = (name: string, returns: 'number' | null, args: 'number'[]) => (...args: number[]) => number;

/** Why threads cannot run in this realm, or null when they can. */
export function threadsUnavailableReason(simd: boolean, threadsFlag: boolean): string | null {
  if (!globalThis.crossOriginIsolated) return 'the page is not cross-origin isolated (no SharedArrayBuffer; see docs/hosting.md)';
  if (!threadsFlag) return 'this browser has no WebAssembly threads';
  if (!simd) return 'this browser has no WebAssembly SIMD, which the threaded build needs';
  return null;
}

/**
 * The threaded + SIMD backend with XNNPACK using `threads` threads (the calling one included, at
 * most 8: emscripten's pool has 8 workers, loaded before the module resolves).
 * Resolves once emscripten's thread pool has loaded; a pool that cannot load never resolves, so
 * the caller bounds the wait.
 */
export async function startThreadedSimdWasm(threads: number): Promise<BackendWasm> {
  // A thread worker runs from a blob: URL, against which a path like /assets/x.js cannot resolve.
  const absolute = (url: string) => new URL(url, globalThis.location.href).href;
  // The worker source came through a template literal, which turned its "\n" escapes into line
  // breaks inside string literals; it is one line of code, so every line break is one of those.
  const workerSource = wasmWorkerContents.replace(/\n/g, '\\n');
  // Kept for the module's lifetime: emscripten starts more thread workers from it on demand.
  const threadWorkerUrl = URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' }));
  const module = await withLogicalCores(2 * threads, () =>
    createThreadedSimdModule({
      mainScriptUrlOrBlob: absolute(threadedSimdGlueUrl),
      locateFile: (path) => (path.endsWith('.worker.js') ? threadWorkerUrl : absolute(threadedSimdWasmUrl)),
    }),
  );
  // The calls BackendWasm makes outside its kernels, as tfjs's own start binds them.
  const { cwrap } = module as unknown as { cwrap: EmscriptenCwrap };
  module.tfjs = {
    init: cwrap('init', null, []),
    initWithThreadsCount: cwrap('init_with_threads_count', null, ['number']),
    getThreadsCount: cwrap('get_threads_count', 'number', []),
    registerTensor: cwrap('register_tensor', null, ['number', 'number', 'number']),
    disposeData: cwrap('dispose_data', null, ['number']),
    dispose: cwrap('dispose', null, []),
  };
  // BackendWasm's constructor creates XNNPACK's thread pool with the count set here.
  setThreadsCount(threads);
  return new BackendWasm(module);
}

/**
 * tfjs caps XNNPACK's pool at half of `navigator.hardwareConcurrency` (it assumes two hardware
 * threads per core), read once by the module's static initialiser, so `setThreadsCount(2)` gives
 * one thread on a 2-core machine. To honour the count asked for, this realm's navigator reports
 * `cores` while the module starts, and its own value again after.
 */
async function withLogicalCores<T>(cores: number, start: () => Promise<T>): Promise<T> {
  Object.defineProperty(navigator, 'hardwareConcurrency', { configurable: true, get: () => cores });
  try {
    return await start();
  } finally {
    // Removes the own property; the prototype's getter shows through again.
    delete (navigator as unknown as { hardwareConcurrency?: number }).hardwareConcurrency;
  }
}
