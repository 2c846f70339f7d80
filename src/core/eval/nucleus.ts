/**
 * Nucleus (top-p) sampling for evaluation, as ReTool samples its test answers. The rollout loop
 * samples with model/sampling.ts from whatever logits the model returns, so top-p is applied by
 * wrapping the model: tokens outside the nucleus get a logit of -Infinity, which that sampler
 * gives zero probability (and the kept tokens' probabilities renormalise).
 */
import * as tf from '@tensorflow/tfjs-core';
import type { GPT, KVCache } from '../model/gpt';

/**
 * Per row of `logits` (row-major [B, V]), the smallest set of tokens, most probable first under
 * softmax(logits / temperature), whose probabilities sum to at least `topP`; every other logit
 * becomes -Infinity. Ties keep the lower token id first. topP 1 or temperature 0 changes nothing.
 */
export function nucleusFilter(logits: Float32Array, batchSize: number, temperature: number, topP: number): Float32Array {
  if (!(topP > 0 && topP <= 1)) throw new Error(`topP must be in (0, 1], got ${topP}`);
  if (!(temperature >= 0) || !Number.isFinite(temperature)) throw new Error(`temperature must be a finite number >= 0, got ${temperature}`);
  const filtered = Float32Array.from(logits);
  if (topP === 1 || temperature === 0) return filtered;
  const V = logits.length / batchSize;
  const order = Array.from({ length: V }, (_, i) => i);
  const probabilities = new Float64Array(V);
  for (let b = 0; b < batchSize; b++) {
    const row = filtered.subarray(b * V, (b + 1) * V);
    let max = -Infinity;
    for (let i = 0; i < V; i++) max = Math.max(max, row[i] / temperature);
    let total = 0;
    for (let i = 0; i < V; i++) total += probabilities[i] = Math.exp(row[i] / temperature - max);
    order.sort((i, j) => probabilities[j] - probabilities[i] || i - j);
    let cumulative = 0;
    let kept = 0;
    while (kept < V && cumulative < topP * total) cumulative += probabilities[order[kept++]];
    for (let r = kept; r < V; r++) row[order[r]] = -Infinity;
  }
  return filtered;
}

/**
 * `model` whose step() logits are nucleus-filtered; everything else is the model's own. Caches are
 * made by `model` itself, since its step() only accepts caches it made.
 */
export function withNucleusFilter(model: GPT, temperature: number, topP: number): GPT {
  const filteredModel = Object.create(model) as GPT;
  filteredModel.newCache = (batchSize: number) => model.newCache(batchSize);
  filteredModel.step = (cache: KVCache, tokens: Int32Array) => {
    const { logits, values } = model.step(cache, tokens);
    const data = nucleusFilter(logits.dataSync() as Float32Array, logits.shape[0], temperature, topP);
    const shape = logits.shape;
    logits.dispose();
    return { logits: tf.tensor2d(data, shape), values };
  };
  return filteredModel;
}
