/**
 * Nucleus (top-p) sampling for evaluation, as ReTool samples its test answers. The rollout loop
 * samples with model/sampling.ts from whatever logits the model returns, so top-p is applied by
 * wrapping the model: tokens outside the nucleus get a logit of -Infinity, which that sampler
 * gives zero probability (and the kept tokens' probabilities renormalise).
 *
 * The filter is tensor ops, so the rollout loop's one asynchronous read stays the only read of a
 * token step: a dataSync here would, on WebGPU, make that next read fail (DESIGN.md).
 */
import * as tf from '@tensorflow/tfjs-core';
import type { GPT, KVCache } from '../model/gpt';

/**
 * Per row of `logits` [B, V], under softmax(logits / temperature), keeps a token when the mass of
 * the tokens more probable than it is below topP (so the most probable token always stays): the
 * smallest most-probable-first set holding at least topP. Tokens tied at the cut all stay; every
 * other logit becomes -Infinity. topP 1 or temperature 0 changes nothing.
 */
export function nucleusFilter(logits: tf.Tensor2D, temperature: number, topP: number): tf.Tensor2D {
  if (!(topP > 0 && topP <= 1)) throw new Error(`topP must be in (0, 1], got ${topP}`);
  if (!(temperature >= 0) || !Number.isFinite(temperature)) throw new Error(`temperature must be a finite number >= 0, got ${temperature}`);
  if (topP === 1 || temperature === 0) return tf.clone(logits);
  return tf.tidy(() => {
    const probabilities = tf.softmax(tf.div(logits, temperature));
    const sorted = tf.topk(probabilities, logits.shape[1], true).values;
    const massBefore = tf.cumsum(sorted, 1, true);
    // The least probable kept token's probability, per row: everything at or above it stays.
    const kept = tf.less(massBefore, topP);
    const cut = tf.min(tf.where(kept, sorted, tf.onesLike(sorted)), 1, true);
    return tf.where(tf.greaterEqual(probabilities, cut), logits, tf.fill(logits.shape, -Infinity)) as tf.Tensor2D;
  });
}

/**
 * `model` whose step() and prefill() logits are nucleus-filtered (the model itself when the filter
 * would change nothing). Caches are made by `model`, since its calls only accept caches it made.
 */
export function withNucleusFilter(model: GPT, temperature: number, topP: number): GPT {
  if (topP === 1 || temperature === 0) return model;
  const filtered = Object.create(model) as GPT;
  const filter = ({ logits, values }: { logits: tf.Tensor2D; values: tf.Tensor1D }) => {
    try {
      return { logits: nucleusFilter(logits, temperature, topP), values };
    } finally {
      logits.dispose();
    }
  };
  filtered.newCache = (batchSize: number) => model.newCache(batchSize);
  filtered.step = (cache: KVCache, tokens: Int32Array) => filter(model.step(cache, tokens));
  filtered.prefill = (cache: KVCache, rows: readonly Int32Array[]) => filter(model.prefill(cache, rows));
  return filtered;
}
