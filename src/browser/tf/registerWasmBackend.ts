/// <reference types="vite/client" />
/**
 * The wasm backend alone, with tfjs's gradients: binaries that Vite emits from node_modules (served
 * from the app's own origin, never a CDN), and the threaded + SIMD build where the realm allows
 * threads (cross-origin isolated), started by threadedWasmBackend.ts because tfjs's own start hangs
 * in a minified build. Otherwise, or if the thread pool does not load in time, it runs the
 * single-threaded build. Either way the build and its reason are recorded for the backend badge
 * (wasmBuildNote.ts). registerBrowserBackends.ts adds the other backends; a gradient helper worker
 * needs this one only.
 */
import * as tf from '@tensorflow/tfjs-core';
// tfjs-core alone registers no gradients; training (and the probe's backward pass) needs them.
import '@tensorflow/tfjs-core/dist/register_all_gradients';
import { getThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import wasmUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm?url';
import wasmSimdUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm?url';
import wasmThreadedSimdUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url';
import { startThreadedSimdWasm, threadsUnavailableReason } from './threadedWasmBackend';
import { recordWasmBuild } from './wasmBuildNote';

export interface BrowserBackendOptions {
  /**
   * XNNPACK threads for the wasm backend, the calling thread included (1 to 8); 1 runs the
   * single-threaded SIMD build. Default: `defaultWasmThreads()`.
   */
  wasmThreads?: number;
}

/** tfjs's priority for wasm, kept so the registration order of preference does not change. */
const WASM_PRIORITY = 2;
/** The thread pool loads in ~0.3 s here; past this it is stuck, and the single-threaded build starts instead. */
const THREAD_POOL_TIMEOUT_MS = 8000;

let registered = false;

/** Call once before the wasm backend starts (setWasmPaths refuses after it initialised). */
export function registerWasmBackend(options: BrowserBackendOptions = {}): void {
  if (registered) return;
  registered = true;
  setWasmPaths({
    'tfjs-backend-wasm.wasm': wasmUrl,
    'tfjs-backend-wasm-simd.wasm': wasmSimdUrl,
    'tfjs-backend-wasm-threaded-simd.wasm': wasmThreadedSimdUrl,
  });
  const singleThreaded = tf.findBackendFactory('wasm');
  if (!singleThreaded) throw new Error('tfjs-backend-wasm registered no wasm backend');
  tf.removeBackend('wasm');
  const threads = options.wasmThreads === undefined ? defaultWasmThreads() : Math.round(Math.min(8, Math.max(1, options.wasmThreads)));
  const why =
    options.wasmThreads === undefined
      ? `half of ${navigator.hardwareConcurrency} logical cores, at most 4: the rest run the Python workers and the page`
      : 'asked for';
  tf.registerBackend('wasm', () => startWasm(threads, why, singleThreaded), WASM_PRIORITY);
}

/**
 * Half the logical cores, at most 4. On the 2-core machine here 2 threads made both halves of an
 * RL step slower while other jobs shared the cores (docs/performance.md has the figures), and the
 * lab's Python workers need cores during every step.
 */
export function defaultWasmThreads(): number {
  return Math.max(1, Math.min(4, Math.floor((navigator.hardwareConcurrency || 1) / 2)));
}

async function startWasm(
  threads: number,
  threadsWhy: string,
  singleThreaded: () => tf.KernelBackend | Promise<tf.KernelBackend>,
): Promise<tf.KernelBackend> {
  const simd = (await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')) as boolean;
  let why =
    threads === 1
      ? `1 thread (${threadsWhy})`
      : threadsUnavailableReason(simd, (await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT')) as boolean);
  if (why === null) {
    try {
      const backend = await withinMs(startThreadedSimdWasm(threads), THREAD_POOL_TIMEOUT_MS);
      recordWasmBuild(`wasm runs the threaded SIMD build on ${getThreadsCount()} threads (${threadsWhy})`);
      return backend;
    } catch (error) {
      why = `the threaded build did not start: ${(error as Error).message}`;
    }
  }
  // tfjs's own start picks the binary from this flag; off, it never touches the threaded build.
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  const backend = await singleThreaded();
  recordWasmBuild(`wasm runs the single-threaded ${simd ? 'SIMD ' : ''}build: ${why}`);
  return backend;
}

function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`its thread pool did not load within ${ms / 1000} s`)), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
