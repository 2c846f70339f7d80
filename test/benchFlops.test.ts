/**
 * The benchmark's FLOP count (src/bench/flops.ts), checked against hand-computed figures, and its
 * counter against the model calls it wraps.
 */
import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { countModelFlops, positionForwardFlops, sequenceForwardFlops } from '../src/bench/flops';
import { measureMatmulPeak } from '../src/bench/matmulPeak';
import type { GPTConfig } from '../src/core/model/config';
import { GPT } from '../src/core/model/gpt';
import { useWasmCheckingTensors } from './modelHelpers';

useWasmCheckingTensors();

const CONFIG: GPTConfig = { vocabSize: 10, contextLength: 8, nLayer: 2, nHead: 2, nEmbd: 4, mlpRatio: 3 };

describe('the FLOP count', () => {
  it('counts one position as its matrix products and its causal attention', () => {
    // per layer: qkv 4x12, proj 4x4, MLP 4x12 and 12x4 = 48 + 16 + 48 + 48 = 160 multiply-adds;
    // heads 4x10 + 4x1 = 44; two layers: 2 (2 x 160 + 44) = 728; attention at position 2 (3 keys): 2 x 4 x 4 x 3 = 96
    expect(positionForwardFlops(CONFIG, 2)).toBe(728 + 96);
    expect(sequenceForwardFlops(CONFIG, 3)).toBe(3 * 728 + 2 * 4 * 4 * (1 + 2 + 3));
  });

  it('counts a forward under a gradient tape three times, a plain one once, and each cache step at its position', async () => {
    const model = GPT.init(CONFIG, 1);
    const tokens = tf.tensor2d([1, 2, 3, 4, 5, 6], [2, 3], 'int32');
    const { flops: plain } = await countModelFlops(async () => tf.dispose(model.forward(tokens)));
    expect(plain).toBe(2 * sequenceForwardFlops(CONFIG, 3));
    const { flops: trained } = await countModelFlops(async () => {
      const { value, grads } = tf.variableGrads(() => tf.sum(model.forward(tokens).logits) as tf.Scalar, model.trainableVariables());
      tf.dispose([value, grads]);
    });
    expect(trained).toBe(3 * plain);
    const cache = model.newCache(2);
    const { flops: decoded } = await countModelFlops(async () => {
      tf.dispose(model.prefill(cache, [Int32Array.from([1, 2]), Int32Array.from([3, 4])]));
      tf.dispose(model.step(cache, Int32Array.from([5, 6])));
    });
    expect(decoded).toBe(2 * sequenceForwardFlops(CONFIG, 3));
    // the methods are the model's own again
    const { flops: after } = await countModelFlops(async () => undefined);
    tf.dispose(model.forward(tokens));
    expect(after).toBe(0);
    expect(Object.prototype.hasOwnProperty.call(GPT.prototype, 'forward')).toBe(true);
    cache.dispose();
    tokens.dispose();
    model.dispose();
  });

  it('measures a matmul peak over the given shapes, the best of them', async () => {
    const peak = await measureMatmulPeak([{ name: 'small', m: 64, k: 32, n: 32 }, { name: 'larger', m: 128, k: 128, n: 128 }], 0.01);
    expect(peak.shapes.map((s) => s.name)).toEqual(['small', 'larger']);
    expect(peak.shapes.every((s) => s.gflopsPerSecond > 0)).toBe(true);
    expect(peak.peakGflopsPerSecond).toBe(Math.max(...peak.shapes.map((s) => s.gflopsPerSecond)));
  });
});
