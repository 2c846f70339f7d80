/**
 * The model's weights as named variables, and the constants of its layers: what the full forward
 * (gpt.ts), the KV-cache decoder (decoding.ts) and the kernels (wasmKernels.ts, the WebGPU ones) all
 * read, kept here so none imports another for them.
 */
import type * as tf from '@tensorflow/tfjs-core';

export interface Linear {
  w: tf.Variable;
  b: tf.Variable;
}
export interface LayerNormWeights {
  gamma: tf.Variable;
  beta: tf.Variable;
}
export interface BlockWeights {
  ln1: LayerNormWeights;
  qkv: Linear;
  attnProj: Linear;
  ln2: LayerNormWeights;
  fc: Linear;
  mlpProj: Linear;
}
export interface ModelWeights {
  wte: tf.Variable;
  blocks: BlockWeights[];
  lnF: LayerNormWeights;
  policyHead: tf.Variable;
  valueHead: Linear;
}

export const LAYER_NORM_EPS = 1e-5;

// 0.5 (1 + tanh(z)) = sigmoid(2z), and wasm's sigmoid is ~5x faster than its tanh or erf (measured)
export const GELU_SCALE = 2 * Math.sqrt(2 / Math.PI);
export const GELU_CUBIC = 0.044715;

/** ALiBi head slopes 2^(-8 (h+1) / H) (Press et al., "Train Short, Test Long"): attention's only position signal. */
export function alibiSlopes(nHead: number): number[] {
  return Array.from({ length: nHead }, (_, h) => 2 ** ((-8 * (h + 1)) / nHead));
}
