/**
 * Nucleus (top-p) sampling computed on the backend, for the lab. The engine's filter
 * (core/eval/nucleus.ts) reads each step's logits with dataSync, and in the lab's worker on WebGPU
 * a dataSync makes the next asynchronous read fail ("A valid external Instance reference no longer
 * exists", DESIGN.md), which the rollout loop's read of the sampled logits then is. Here the
 * filter is tensor ops, and the rollout loop's one asynchronous read is the only read.
 *
 * Same rule as nucleusFilter: under softmax(logits / temperature), a token is kept when the mass of
 * the tokens more probable than it is below topP (so the most probable token always is); the rest
 * get -Infinity. Unlike it, tokens tied at the cut are all kept, and the mass is summed in float32.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { GPT, KVCache } from '../core/model/gpt';

export function nucleusFilterOnDevice(logits: tf.Tensor2D, temperature: number, topP: number): tf.Tensor2D {
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

/** `model` whose step() logits are nucleus-filtered on the backend; caches are the model's own. */
export function withDeviceNucleus(model: GPT, temperature: number, topP: number): GPT {
  if (topP === 1 || temperature === 0) return model;
  const filtered = Object.create(model) as GPT;
  filtered.newCache = (batchSize: number) => model.newCache(batchSize);
  filtered.step = (cache: KVCache, tokens: Int32Array) => {
    const { logits, values } = model.step(cache, tokens);
    try {
      return { logits: nucleusFilterOnDevice(logits, temperature, topP), values };
    } finally {
      logits.dispose();
    }
  };
  return filtered;
}
