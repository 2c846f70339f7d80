/**
 * What WebGPU adapter this browser offers, for the backend badge and the probe's reason. A
 * software adapter (SwiftShader, `isFallbackAdapter`) works but is far slower than WASM here.
 */
import type { BackendInfo } from '../../trainerWorker/protocol';

export type AdapterFacts = NonNullable<BackendInfo['adapter']>;

/** The slice of the WebGPU API used here (TypeScript's DOM lib has no WebGPU types). */
interface GpuAdapterLike {
  info?: { vendor?: string; architecture?: string; isFallbackAdapter?: boolean };
  /** Older Chromium put the flag on the adapter itself. */
  isFallbackAdapter?: boolean;
}
interface GpuLike {
  requestAdapter(): Promise<GpuAdapterLike | null>;
}

/** The adapter's facts, or why there are none (no navigator.gpu, or no adapter). */
export async function queryWebGPUAdapter(): Promise<{ adapter: AdapterFacts | null; problem: string | null }> {
  const gpu = (globalThis.navigator as { gpu?: GpuLike } | undefined)?.gpu;
  if (!gpu) return { adapter: null, problem: 'this browser has no WebGPU (navigator.gpu is missing)' };
  let adapter: GpuAdapterLike | null;
  try {
    adapter = await gpu.requestAdapter();
  } catch (error) {
    return { adapter: null, problem: `navigator.gpu.requestAdapter() failed: ${(error as Error).message}` };
  }
  if (!adapter) {
    return {
      adapter: null,
      problem: 'navigator.gpu.requestAdapter() found no adapter (no usable GPU; headless Chromium needs --enable-unsafe-webgpu)',
    };
  }
  return {
    adapter: {
      vendor: adapter.info?.vendor || 'unknown',
      architecture: adapter.info?.architecture || 'unknown',
      isFallbackAdapter: adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false,
    },
    problem: null,
  };
}
