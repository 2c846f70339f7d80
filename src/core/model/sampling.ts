/**
 * Choosing the next token for each sequence of a batch from the model's logits. The probabilities are
 * read back once per step and sampled in JS with the run's seeded Random, so a seed gives the same
 * tokens on every backend (tf.multinomial would draw from the backend's own generator).
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Random } from '../random';

/**
 * log softmax(logits / temperature) [B, V]; temperature 0 (greedy) scores with temperature 1.
 * Split out so a worker on WebGPU can read it back with `await data()` and call sampleFromLogProbs.
 */
export function samplingLogProbs(logits: tf.Tensor2D, temperature: number): tf.Tensor2D {
  if (!(temperature >= 0) || !Number.isFinite(temperature)) {
    throw new Error(`temperature must be a finite number >= 0, got ${temperature}`);
  }
  return tf.tidy(() => tf.logSoftmax(temperature === 0 ? logits : tf.div<tf.Tensor2D>(logits, temperature)));
}

/**
 * One token per row of `logProbs` (row-major [B, V]): the argmax at temperature 0, else a draw from
 * exp(logProbs) with one rng.next() per row. Returns the tokens and their log probabilities.
 */
export function sampleFromLogProbs(
  logProbs: Float32Array,
  batchSize: number,
  temperature: number,
  rng: Random,
): { tokens: Int32Array; logProbs: Float32Array } {
  const V = logProbs.length / batchSize;
  if (!Number.isInteger(V) || V < 1) throw new Error(`${logProbs.length} log probabilities do not split into ${batchSize} rows`);
  const tokens = new Int32Array(batchSize);
  const chosen = new Float32Array(batchSize);
  for (let b = 0; b < batchSize; b++) {
    const row = logProbs.subarray(b * V, (b + 1) * V);
    const token = temperature === 0 ? argmax(row) : drawFromRow(row, rng.next());
    tokens[b] = token;
    chosen[b] = row[token];
  }
  return { tokens, logProbs: chosen };
}

/** First index of the largest value. */
function argmax(row: Float32Array): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

/** Inverse-CDF draw for uniform `u` in [0, 1); rounding that leaves the total below u picks the last likely token. */
function drawFromRow(row: Float32Array, u: number): number {
  let cumulative = 0;
  let lastPossible = 0;
  for (let i = 0; i < row.length; i++) {
    const p = Math.exp(row[i]);
    if (p === 0) continue;
    cumulative += p;
    lastPossible = i;
    if (u < cumulative) return i;
  }
  return lastPossible;
}

/**
 * Samples one token per sequence from logits [B, V] at `temperature` (0 = greedy). logProbs are
 * log softmax(logits / temperature) at the chosen tokens (temperature 0: of the logits at temperature 1),
 * i.e. the behaviour policy's log probabilities that PPO's ratio needs. Does not dispose `logits`.
 */
export function sampleTokens(
  logits: tf.Tensor2D,
  temperature: number,
  rng: Random,
): { tokens: Int32Array; logProbs: Float32Array } {
  const logProbs = samplingLogProbs(logits, temperature);
  const values = logProbs.dataSync() as Float32Array;
  logProbs.dispose();
  return sampleFromLogProbs(values, logits.shape[0], temperature, rng);
}
