import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../src/core/experiment';
import { VOCAB_SIZE } from '../src/core/tokenizer';
import { chunkCost, CHUNK_OVERHEAD, chunkOverhead, GPU_CHUNK_OVERHEAD, lengthChunks, MAX_CHUNK_POSITIONS, minibatchGradients, WIDTH_DOUBLING } from '../src/core/rl/minibatchGradients';
import type { TrainingSequence } from '../src/core/rl/trainingBatch';
import { randomModel, useWasmBackend } from './modelHelpers';
import { trainingRows as sequences } from './trainingRows';

beforeAll(useWasmBackend);

const MODEL = { vocabSize: VOCAB_SIZE, contextLength: 64, nLayer: 1, nHead: 2, nEmbd: 16, mlpRatio: 2 };

describe('minibatchGradients', () => {
  it('sorts rows by length into chunks', () => {
    const rows = sequences(5, 1);
    const chunks = lengthChunks(rows, 0);
    const lengths = chunks.flat().map((s) => s.ids.length);
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    expect(chunks.flat()).toHaveLength(5);
  });

  it('cuts where the padding saved is worth more than a chunk: a few long rows get a chunk of their own', () => {
    const ofLengths = (lengths: number[]) => lengths.map((n) => ({ ...sequences(1, 3)[0], ids: Array(n).fill(5) }));
    const widths = (chunks: TrainingSequence[][]) => chunks.map((c) => c.map((s) => s.ids.length));
    // One chunk: 190 + 4 x 100 x (1 + 100/120) = 923.3; [10, 10, 10] and [100]: 222.5 + 373.3 = 595.8.
    expect([CHUNK_OVERHEAD, WIDTH_DOUBLING]).toEqual([190, 120]);
    expect(chunkCost(4, 100)).toBeCloseTo(923.333, 3);
    expect(chunkCost(3, 10) + chunkCost(1, 100)).toBeCloseTo(595.833, 3);
    expect(widths(lengthChunks(ofLengths([100, 10, 10, 10])))).toEqual([[10, 10, 10], [100]]);
    // The active backend's overhead is the default: wasm here; a GPU backend's is far larger.
    expect([chunkOverhead(), chunkOverhead('cpu'), chunkOverhead('webgpu'), chunkOverhead('webgl')]).toEqual([190, 190, GPU_CHUNK_OVERHEAD, GPU_CHUNK_OVERHEAD]);
    expect(widths(lengthChunks(ofLengths([100, 10, 10, 10]), GPU_CHUNK_OVERHEAD))).toEqual([[10, 10, 10, 100]]);
    // When a chunk costs 1000 (a dispatch-bound device), one chunk is cheaper: 1733.3 against 2215.8.
    expect(widths(lengthChunks(ofLengths([100, 10, 10, 10]), 1000))).toEqual([[10, 10, 10, 100]]);
    // Equal rows cost no padding: one chunk, until MAX_CHUNK_POSITIONS.
    expect(widths(lengthChunks(ofLengths(Array(40).fill(100))))).toEqual([Array(40).fill(100)]);
    const over = lengthChunks(ofLengths(Array(50).fill(100)));
    // 50 rows of 100 are 5000 positions: two chunks (any split of at most 40 rows each costs the same).
    expect(over.map((c) => c.length).reduce((a, b) => a + b)).toBe(50);
    expect(over).toHaveLength(2);
    over.forEach((c) => expect(c.length * 100).toBeLessThanOrEqual(MAX_CHUNK_POSITIONS));
    // A single row longer than the cap is still a chunk.
    expect(widths(lengthChunks(ofLengths([MAX_CHUNK_POSITIONS + 1])))).toEqual([[MAX_CHUNK_POSITIONS + 1]]);
  });

  it('chunked by length, gives the gradient and figures of the whole minibatch at once (PPO with value loss and KL)', async () => {
    const model = randomModel(MODEL, 4);
    const config = { ...PRESETS.classroom, klCoef: 0.05 };
    const rows = sequences(24, 2);
    const before = tf.memory().numTensors;
    const whole = await minibatchGradients(model, rows, config, Infinity);
    const chunked = await minibatchGradients(model, rows, config, 1e-6);
    expect([lengthChunks(rows, Infinity).length, lengthChunks(rows, 1e-6).length]).toEqual([1, new Set(rows.map((r) => r.ids.length)).size]);
    for (const name of Object.keys(whole.grads)) {
      const a = whole.grads[name].dataSync();
      const b = chunked.grads[name].dataSync();
      const scale = Math.max(...Array.from(a, Math.abs));
      expect(scale).toBeGreaterThan(0);
      a.forEach((x, i) => expect(Math.abs(x - b[i])).toBeLessThan(1e-5 + 1e-4 * scale));
    }
    expect(chunked.clipFraction).toBeCloseTo(whole.clipFraction, 5);
    expect(whole.approxKl).toBeGreaterThan(0);
    expect(chunked.approxKl).toBeCloseTo(whole.approxKl, 5);
    expect(chunked.valueLoss).toBeCloseTo(whole.valueLoss, 5);
    expect(chunked.entropy).toBeCloseTo(whole.entropy, 5);
    tf.dispose([...Object.values(whole.grads), ...Object.values(chunked.grads)]);
    expect(tf.memory().numTensors).toBe(before);
    model.dispose();
  });
});
