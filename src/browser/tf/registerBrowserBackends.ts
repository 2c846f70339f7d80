/**
 * Registers the four tfjs backends and tfjs's gradients in the browser: the wasm backend as
 * registerWasmBackend.ts starts it, and the fused WGSL kernels on the WebGPU backend
 * (src/browser/webgpu/fusedKernels.ts).
 */
import '@tensorflow/tfjs-backend-cpu';
import '@tensorflow/tfjs-backend-webgl';
import '@tensorflow/tfjs-backend-webgpu';
import { registerFusedWebGpuKernels } from '../webgpu/fusedKernels';
import { registerWasmBackend, type BrowserBackendOptions } from './registerWasmBackend';

export { defaultWasmThreads, type BrowserBackendOptions } from './registerWasmBackend';

let registered = false;

/** Call once before any backend starts (setWasmPaths refuses after the wasm backend initialised). */
export function registerBrowserBackends(options: BrowserBackendOptions = {}): void {
  if (registered) return;
  registered = true;
  registerFusedWebGpuKernels();
  registerWasmBackend(options);
}
