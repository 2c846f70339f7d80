import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { clipByGlobalNorm } from '../src/core/optim/gradClip';
import { useWasmCheckingTensors } from './modelHelpers';

useWasmCheckingTensors();

// a = [3, 4] (norm 5), b = [[0, 0], [12, 0]] (norm 12): global norm sqrt(25 + 144) = 13
function gradients(): tf.NamedTensorMap {
  return { a: tf.tensor1d([3, 4]), b: tf.tensor2d([[0, 0], [12, 0]]) };
}

describe('clipByGlobalNorm', () => {
  it('scales every gradient by maxNorm / norm when the norm is above maxNorm', async () => {
    const grads = gradients();
    const out = await clipByGlobalNorm(grads, 6.5);
    // scale 6.5 / 13 = 0.5
    expect(out.norm).toBeCloseTo(13, 5);
    expect(Array.from(out.grads.a.dataSync())).toEqual([1.5, 2]);
    expect(Array.from(out.grads.b.dataSync())).toEqual([0, 0, 6, 0]);
    expect(out.grads.b.shape).toEqual([2, 2]);
    tf.dispose([...Object.values(grads), ...Object.values(out.grads)]);
  });

  it('returns unscaled copies when the norm is within maxNorm', async () => {
    const grads = gradients();
    const out = await clipByGlobalNorm(grads, 20);
    expect(out.norm).toBeCloseTo(13, 5);
    expect(out.grads.a).not.toBe(grads.a);
    expect(Array.from(out.grads.a.dataSync())).toEqual([3, 4]);
    expect(Array.from(out.grads.b.dataSync())).toEqual([0, 0, 12, 0]);
    // the copies survive the caller disposing the inputs
    tf.dispose(Object.values(grads));
    expect(Array.from(out.grads.a.dataSync())).toEqual([3, 4]);
    tf.dispose(Object.values(out.grads));
  });

  it('reports a non-finite norm and leaves the gradients unscaled', async () => {
    const grads = { a: tf.tensor1d([NaN, 1]) };
    const out = await clipByGlobalNorm(grads, 1);
    expect(out.norm).toBeNaN();
    expect(out.grads.a.dataSync()[1]).toBe(1);
    tf.dispose([grads.a, out.grads.a]);
  });

  it('handles an empty map and refuses a non-positive maxNorm', async () => {
    expect(await clipByGlobalNorm({}, 1)).toEqual({ grads: {}, norm: 0 });
    await expect(clipByGlobalNorm({}, 0)).rejects.toThrow(RangeError);
  });

  it('sums the squares of many gradients (added 7 at a time, for WebGPU) to the same norm', async () => {
    // 50 gradients of ones, sizes 1..50: squared norm 1 + ... + 50 = 1275
    const grads: tf.NamedTensorMap = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`g${i}`, tf.ones([i + 1])]));
    const out = await clipByGlobalNorm(grads, 1);
    expect(out.norm).toBeCloseTo(Math.sqrt(1275), 4);
    expect(out.grads.g49.dataSync()[0]).toBeCloseTo(1 / Math.sqrt(1275), 6);
    tf.dispose([...Object.values(grads), ...Object.values(out.grads)]);
  });
});
