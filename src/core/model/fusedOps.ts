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

/** Adam's hyperparameters and bias corrections (1 - beta^t) for one step, as the kernel's attributes. */
export interface AdamStepAttrs {
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
  firstCorrection: number;
  secondCorrection: number;
}

/**
 * One Adam step for one variable, as tfjs's AdamOptimizer computes it:
 *   m' = beta1 m + (1 - beta1) g,  v' = beta2 v + (1 - beta2) g^2,
 *   value' = value - learningRate (m' / c1) / (sqrt(v' / c2) + epsilon).
 * Inputs { value, m, v, gradient } (same shape), attrs AdamStepAttrs; outputs [value', m', v'].
 */
export function adamUpdate(value: tf.Tensor, m: tf.Tensor, v: tf.Tensor, gradient: tf.Tensor, attrs: AdamStepAttrs): tf.Tensor[] {
  const kernelAttrs = { ...attrs } as unknown as tf.NamedAttrMap;
  return tf.engine().runKernel(FUSED_KERNELS.adamUpdate, { value, m, v, gradient }, kernelAttrs) as tf.Tensor[];
}

/** tfjs's AdamOptimizer state, which is protected in its typings; the fused step reads and updates it in place. */
export interface AdamInternals {
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
  accBeta1: tf.Variable;
  accBeta2: tf.Variable;
  accumulatedFirstMoment: { originalName: string; variable: tf.Variable }[];
  accumulatedSecondMoment: { originalName: string; variable: tf.Variable }[];
  incrementIterations(): void;
}

/** Sets an optimizer's step size between updates: tfjs keeps it protected, and both its own and the fused step read it at each update. */
export function setLearningRate(optimizer: tf.Optimizer, rate: number): void {
  (optimizer as unknown as { learningRate: number }).learningRate = rate;
}

/**
 * optimizer.applyGradients(grads), with one fused kernel per variable where the backend has it and the
 * optimizer is tfjs's Adam (tfjs spends 14 kernels per variable). The fused step keeps the optimizer's
 * own state (moments matched to variables by position, as tfjs does, and the beta powers and
 * iteration count), so fused and plain steps can follow one another.
 */
export function applyGradients(optimizer: tf.Optimizer, grads: tf.NamedTensorMap): void {
  if (!(optimizer instanceof tf.AdamOptimizer) || !hasFusedKernel(FUSED_KERNELS.adamUpdate)) {
    optimizer.applyGradients(grads);
    return;
  }
  const adam = optimizer as unknown as AdamInternals;
  const step = optimizer.iterations + 1;
  const attrs: AdamStepAttrs = {
    learningRate: adam.learningRate,
    beta1: adam.beta1,
    beta2: adam.beta2,
    epsilon: adam.epsilon,
    firstCorrection: 1 - adam.beta1 ** step,
    secondCorrection: 1 - adam.beta2 ** step,
  };
  tf.tidy(() => {
    Object.keys(grads).forEach((name, i) => {
      const value = tf.engine().registeredVariables[name];
      adam.accumulatedFirstMoment[i] ??= { originalName: `${name}/m`, variable: tf.tidy(() => tf.zerosLike(value).variable(false)) };
      adam.accumulatedSecondMoment[i] ??= { originalName: `${name}/v`, variable: tf.tidy(() => tf.zerosLike(value).variable(false)) };
      const m = adam.accumulatedFirstMoment[i].variable;
      const v = adam.accumulatedSecondMoment[i].variable;
      const [newValue, newM, newV] = adamUpdate(value, m, v, grads[name], attrs);
      value.assign(newValue);
      m.assign(newM);
      v.assign(newV);
    });
    // beta^(t+1), as tfjs's own step leaves them (and as its setWeights restores them).
    adam.accBeta1.assign(tf.scalar(adam.beta1 ** (step + 1)));
    adam.accBeta2.assign(tf.scalar(adam.beta2 ** (step + 1)));
  });
  adam.incrementIterations();
}
