/**
 * The benchmark's FLOP count, written down once: the model's useful arithmetic, counted from the
 * model's own calls (forward, prefill, a KV-cache step), not from the kernels that ran. So a padded
 * position of a training chunk counts (it is computed), a key after the query does not (causal
 * attention needs none of it), and elementwise work (LayerNorm, GELU, softmax, Adam) counts nothing.
 *
 * One position's forward at position t (0-based), with C = nEmbd, hidden = mlpRatio C, V = vocab:
 *   matrix products: 2 (nLayer (3C^2 + C^2 + 2 C hidden) + C V + C)   (qkv, proj, MLP; policy and value heads)
 *   attention:       nLayer 4 C (t + 1)                                 (q.k and p.v over t + 1 keys)
 * A training pass (forward and backward) is 3 forwards, the usual 1 + 2 of "6N per token" for a
 * model of N parameters; it is recognised by tfjs recording a gradient tape during the forward.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { GPTConfig } from '../core/model/config';
import { GPT, type KVCache } from '../core/model/gpt';

/** FLOPs of one position's forward at position `t`. */
export function positionForwardFlops(config: GPTConfig, t: number): number {
  const C = config.nEmbd;
  const hidden = C * config.mlpRatio;
  const products = 2 * (config.nLayer * (4 * C * C + 2 * C * hidden) + C * config.vocabSize + C);
  return products + config.nLayer * 4 * C * (t + 1);
}

/** FLOPs of the forward over positions 0..length-1 of one sequence. */
export function sequenceForwardFlops(config: GPTConfig, length: number): number {
  let flops = 0;
  for (let t = 0; t < length; t++) flops += positionForwardFlops(config, t);
  return flops;
}

/** Multiplier of a forward run under a gradient tape: forward 1, backward 2. */
export const TRAINING_PASS_FORWARDS = 3;

/**
 * Runs `work` while counting the FLOPs of every GPT forward, prefill and cache step it makes (on any
 * model), by wrapping GPT's methods for the duration. Not reentrant: one count at a time.
 */
export async function countModelFlops<T>(work: () => Promise<T>): Promise<{ result: T; flops: number }> {
  const proto = GPT.prototype;
  const original = { forward: proto.forward, prefill: proto.prefill, step: proto.step };
  let flops = 0;
  const engine = tf.engine() as unknown as { isTapeOn(): boolean };
  proto.forward = function (this: GPT, tokens: tf.Tensor2D) {
    const [B, T] = tokens.shape;
    flops += B * sequenceForwardFlops(this.config, T) * (engine.isTapeOn() ? TRAINING_PASS_FORWARDS : 1);
    return original.forward.call(this, tokens);
  };
  proto.prefill = function (this: GPT, cache: KVCache, rows: readonly Int32Array[]) {
    flops += rows.length * sequenceForwardFlops(this.config, rows[0]?.length ?? 0);
    return original.prefill.call(this, cache, rows);
  };
  proto.step = function (this: GPT, cache: KVCache, tokens: Int32Array) {
    flops += tokens.length * positionForwardFlops(this.config, cache.length);
    return original.step.call(this, cache, tokens);
  };
  try {
    const result = await work();
    return { result, flops };
  } finally {
    Object.assign(proto, original);
  }
}
