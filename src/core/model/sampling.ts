/**
 * Choosing the next token for each sequence of a batch from the model's logits. The uniform draws
 * come from the run's seeded Random, one per row, so a seed gives the same tokens on every backend
 * (tf.multinomial would draw from the backend's own generator). Where the logits live in CPU memory
 * (wasm, cpu) they are read back and the softmax and draw run in JS, cheaper than the handful of
 * kernels they take in tfjs. Where the backend has the fused sampling kernel (WebGPU), the draws are
 * uploaded and the same draw runs on the device: a token step reads back [B, 2], not [B, V].
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Random } from '../random';
import { FUSED_KERNELS, hasFusedKernel, sampleRows } from './fusedOps';

/**
 * One token per row of `logits` (row-major [B, V]): the argmax at temperature 0, else a draw from
 * softmax(logits / temperature) with one rng.next() per row. logProbs are log softmax(logits /
 * temperature) at the chosen tokens (temperature 0: at temperature 1), i.e. the behaviour policy's
 * log probabilities that PPO's ratio needs. sampleTokens calls this on a tensor's logits where it
 * does not sample on the device.
 */
export function sampleFromLogits(
  logits: Float32Array,
  batchSize: number,
  temperature: number,
  rng: Pick<Random, 'next'>,
): { tokens: Int32Array; logProbs: Float32Array } {
  if (!(temperature >= 0) || !Number.isFinite(temperature)) {
    throw new Error(`temperature must be a finite number >= 0, got ${temperature}`);
  }
  const V = logits.length / batchSize;
  if (!Number.isInteger(V) || V < 1) throw new Error(`${logits.length} logits do not split into ${batchSize} rows`);
  const scale = temperature === 0 ? 1 : 1 / temperature;
  const tokens = new Int32Array(batchSize);
  const logProbs = new Float32Array(batchSize);
  const probabilities = new Float64Array(V);
  for (let b = 0; b < batchSize; b++) {
    const row = logits.subarray(b * V, (b + 1) * V);
    let max = -Infinity;
    let argmax = 0;
    for (let i = 0; i < V; i++) {
      if (row[i] > row[argmax]) argmax = i;
      max = Math.max(max, row[i] * scale);
    }
    let total = 0;
    for (let i = 0; i < V; i++) total += probabilities[i] = Math.exp(row[i] * scale - max);
    const token = temperature === 0 ? argmax : drawIndex(probabilities, total * rng.next());
    tokens[b] = token;
    logProbs[b] = row[token] * scale - max - Math.log(total);
  }
  return { tokens, logProbs };
}

/** Inverse-CDF draw: the first index where the running sum of `weights` passes `target` (never a zero weight). */
function drawIndex(weights: Float64Array, target: number): number {
  let cumulative = 0;
  let lastPossible = 0;
  for (let i = 0; i < weights.length; i++) {
    if (weights[i] === 0) continue;
    cumulative += weights[i];
    lastPossible = i;
    if (target < cumulative) return i;
  }
  return lastPossible; // rounding left the running sum a hair below target
}

/** The largest float32 below 1: a draw rounded up to 1 would fall past the last token. */
const LAST_FLOAT_BELOW_ONE = 1 - 2 ** -24;

/**
 * sampleFromLogits on a [B, V] tensor, with one asynchronous readback: of the tokens and their
 * log-probs where the backend samples on the device, else of the logits. The rng is drawn in the same
 * order either way. Does not dispose `logits`.
 */
export async function sampleTokens(
  logits: tf.Tensor2D,
  temperature: number,
  rng: Pick<Random, 'next'>,
): Promise<{ tokens: Int32Array; logProbs: Float32Array }> {
  const B = logits.shape[0];
  if (!hasFusedKernel(FUSED_KERNELS.sampleRows)) return sampleFromLogits((await logits.data()) as Float32Array, B, temperature, rng);
  const draws = new Float32Array(B);
  if (temperature !== 0) for (let b = 0; b < B; b++) draws[b] = Math.min(rng.next(), LAST_FLOAT_BELOW_ONE);
  const sampled = tf.tidy(() => sampleRows(logits, tf.tensor1d(draws), temperature));
  try {
    const pairs = (await sampled.data()) as Float32Array;
    return {
      tokens: Int32Array.from({ length: B }, (_, b) => pairs[2 * b]),
      logProbs: Float32Array.from({ length: B }, (_, b) => pairs[2 * b + 1]),
    };
  } finally {
    sampled.dispose();
  }
}
