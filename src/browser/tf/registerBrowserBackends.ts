/// <reference types="vite/client" />
/**
 * Registers the four tfjs backends and tfjs's gradients in the browser, and points the wasm backend
 * at binaries that Vite emits from node_modules (served from the app's own origin, never a CDN).
 *
 * Threaded wasm is turned off: in a minified `vite build` under COOP/COEP its thread workers throw
 * `ReferenceError: e is not defined` and the backend never starts (DESIGN.md). The single-threaded
 * SIMD build is what the lab measured, and the two cores here are shared with the Python workers.
 */
import * as tf from '@tensorflow/tfjs-core';
// tfjs-core alone registers no gradients; training (and the probe's backward pass) needs them.
import '@tensorflow/tfjs-core/dist/register_all_gradients';
import '@tensorflow/tfjs-backend-cpu';
import '@tensorflow/tfjs-backend-webgl';
import '@tensorflow/tfjs-backend-webgpu';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import wasmUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm?url';
import wasmSimdUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm?url';
import wasmThreadedSimdUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url';

let registered = false;

/** Call once before any backend starts (setWasmPaths refuses after the wasm backend initialised). */
export function registerBrowserBackends(): void {
  if (registered) return;
  registered = true;
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  // setWasmPaths wants all three names; the threaded one is never fetched with threads off.
  setWasmPaths({
    'tfjs-backend-wasm.wasm': wasmUrl,
    'tfjs-backend-wasm-simd.wasm': wasmSimdUrl,
    'tfjs-backend-wasm-threaded-simd.wasm': wasmThreadedSimdUrl,
  });
}
