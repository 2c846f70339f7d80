/**
 * Fused kernels: what each computes, its tfjs kernel name, and the choice between it and the plain
 * tfjs ops. A token step of a tiny model costs kernel dispatches, not FLOPs (docs/performance.md), so
 * where a backend registers these kernels (WebGPU: src/browser/webgpu/fusedKernels.ts; wasm, in Node
 * and the browser, the decoding ones: src/core/model/wasmKernels.ts) one dispatch does what took
 * several. Elsewhere (cpu, webgl) none is registered and the plain ops run exactly as before. Each
 * kernel equals the plain ops it replaces up to float rounding (e2e/fusedKernels.spec.ts,
 * test/wasmKernels.test.ts). The engine never imports a backend: it asks for a kernel by name.
 */
import * as tf from '@tensorflow/tfjs-core';

/** Kernel names, as registered with tf.registerKernel; inputs and attributes as documented on each call below. */
export const FUSED_KERNELS = {
  rmsNorm: 'TirRmsNorm',
  geluGate: 'TirGeluGate',
  writeHeads: 'TirWriteHeads',
  alibiAttention: 'TirAlibiAttention',
  sampleRows: 'TirSampleRows',
  adamUpdate: 'TirAdamUpdate',
  embedRows: 'TirEmbedRows',
  gatherRows: 'TirGatherRows',
} as const;

export type FusedKernelName = (typeof FUSED_KERNELS)[keyof typeof FUSED_KERNELS];

/** Whether the active backend has this fused kernel (else the caller runs the plain ops). */
export function hasFusedKernel(name: FusedKernelName): boolean {
  return tf.getKernel(name, tf.getBackend()) !== undefined;
}

/** Which part of the fused projection qkv [1, B, 3C] a cache holds. */
export const QKV_PART = { key: 1, value: 2 } as const;

/** x * rsqrt(mean(x^2) + eps) over the last axis; same shape as x. Inputs { x }, attrs { eps }. */
export function rmsNorm<T extends tf.Tensor>(x: T, eps: number): T {
  return tf.engine().runKernel(FUSED_KERNELS.rmsNorm, { x }, { eps }) as T;
}

/** The GELU of decoding.ts's folded MLP: x * sigmoid(x * (x^2 + offset)), elementwise. Inputs { x }, attrs { offset }. */
export function geluGate<T extends tf.Tensor>(x: T, offset: number): T {
  return tf.engine().runKernel(FUSED_KERNELS.geluGate, { x }, { offset }) as T;
}

/**
 * Writes this position's keys or values, read from the fused projection qkv [1, B, 3C] (C = H * D),
 * into a preallocated cache [B, H, capacity, D] at `position`, in place, and returns a new handle on
 * the same storage (as a reshape does). The one kernel that writes into an input: tfjs has no
 * in-place update, and growing a cache by concat copies all of it every token step. Only a cache
 * that nothing else reads may be passed (DecodingCache's own), and its old handle then disposed.
 * Inputs { qkv, cache }, attrs { nHead, part, position } (part: QKV_PART).
 */
export function writeHeads(qkv: tf.Tensor3D, cache: tf.Tensor4D, nHead: number, part: number, position: number): tf.Tensor4D {
  return tf.engine().runKernel(FUSED_KERNELS.writeHeads, { qkv, cache }, { nHead, part, position }) as tf.Tensor4D;
}

/**
 * One query position per sequence against the first `length` positions of its cache, with ALiBi
 * (attention.ts's slopes): for each sequence b and head h, with q from qkv [1, B, 3C] (already scaled
 * by 1/sqrt(D)), keys and values [B, H, capacity, D] and the query at position length - 1,
 *   out[0, b, h*D + d] = sum_{j < length} softmax_j(q . k_j - slope_h (length - 1 - j)) v_j[d],  [1, B, C].
 * Inputs { qkv, keys, values }, attrs { nHead, length }.
 */
export function alibiAttention(qkv: tf.Tensor3D, keys: tf.Tensor4D, values: tf.Tensor4D, nHead: number, length: number): tf.Tensor3D {
  return tf.engine().runKernel(FUSED_KERNELS.alibiAttention, { qkv, keys, values }, { nHead, length }) as tf.Tensor3D;
}

/** The rows of table [1, V, C] at tokens (int32 [B]), [1, B, C]: tf.gather on axis 1. Inputs { table, tokens }. */
export function embedRows(table: tf.Tensor3D, tokens: tf.Tensor1D): tf.Tensor3D {
  return tf.engine().runKernel(FUSED_KERNELS.embedRows, { table, tokens }, {}) as tf.Tensor3D;
}

/** tf.gather(x, rows, 0) for a float32 x and ascending int32 rows. Inputs { x, rows }. */
export function gatherRows<T extends tf.Tensor>(x: T, rows: tf.Tensor1D): T {
  return tf.engine().runKernel(FUSED_KERNELS.gatherRows, { x, rows }, {}) as T;
}

/**
 * model/sampling.ts's sampleFromLogits on the device: per row of logits [B, V], the argmax at
 * temperature 0, else the inverse-CDF draw from softmax(logits / temperature) at draws[b] (uniform in
 * [0, 1)); returns [B, 2] of (token, log-prob of the token), so a token step reads back 2B numbers.
 * Inputs { logits, draws }, attrs { temperature }.
 */
export function sampleRows(logits: tf.Tensor2D, draws: tf.Tensor1D, temperature: number): tf.Tensor2D {
  return tf.engine().runKernel(FUSED_KERNELS.sampleRows, { logits, draws }, { temperature }) as tf.Tensor2D;
}
