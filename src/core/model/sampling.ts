/**
 * Choosing the next token for each sequence of a batch from the model's logits. The logits are read
 * back once per step and the softmax and the draw happen in JS with the run's seeded Random, so a seed
 * gives the same tokens on every backend (tf.multinomial would draw from the backend's own generator),
 * and a [B, V] softmax costs less in JS than the handful of kernels it takes in tfjs.
 */
import type * as tf from '@tensorflow/tfjs-core';
import type { Random } from '../random';

/**
 * One token per row of `logits` (row-major [B, V]): the argmax at temperature 0, else a draw from
 * softmax(logits / temperature) with one rng.next() per row. logProbs are log softmax(logits /
 * temperature) at the chosen tokens (temperature 0: at temperature 1), i.e. the behaviour policy's
 * log probabilities that PPO's ratio needs. A worker on WebGPU reads back with `await logits.data()`
 * and calls this; sampleTokens is the synchronous shortcut.
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

/** sampleFromLogits on a [B, V] tensor, read back synchronously. Does not dispose `logits`. */
export function sampleTokens(
  logits: tf.Tensor2D,
  temperature: number,
  rng: Pick<Random, 'next'>,
): { tokens: Int32Array; logProbs: Float32Array } {
  return sampleFromLogits(logits.dataSync() as Float32Array, logits.shape[0], temperature, rng);
}
