import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { sampleFromLogits, sampleTokens } from '../src/core/model/sampling';
import { Random } from '../src/core/random';
import { useWasmBackend } from './modelHelpers';

beforeAll(useWasmBackend);

const logitsOf = (rows: number[][]) => tf.tensor2d(rows);

describe('sampleTokens', () => {
  it('picks the argmax at temperature 0, with log probabilities at temperature 1', async () => {
    // row 0: softmax of [0, ln 3] is [1/4, 3/4]; row 1 ties pick the first; row 2 picks index 2
    const logits = logitsOf([
      [0, Math.log(3), -Infinity],
      [5, 5, 1],
      [0, 1, 2],
    ]);
    const { tokens, logProbs } = await sampleTokens(logits, 0, new Random(1));
    expect(Array.from(tokens)).toEqual([1, 0, 2]);
    expect(logProbs[0]).toBeCloseTo(Math.log(3 / 4), 6);
    expect(logProbs[1]).toBeCloseTo(-Math.log(2 + Math.exp(-4)), 6);
    expect(logProbs[2]).toBeCloseTo(2 - Math.log(1 + Math.E + Math.E ** 2), 6);
    logits.dispose();
  });

  it('draws with softmax frequencies at temperature 1', async () => {
    const probabilities = [0.1, 0.2, 0.3, 0.4];
    const draws = 20_000;
    const logits = logitsOf(Array.from({ length: draws }, () => probabilities.map(Math.log)));
    const { tokens, logProbs } = await sampleTokens(logits, 1, new Random(7));
    const counts = [0, 0, 0, 0];
    tokens.forEach((t, i) => {
      counts[t]++;
      expect(logProbs[i]).toBeCloseTo(Math.log(probabilities[t]), 5);
    });
    // binomial standard deviation is at most sqrt(0.25/20000) = 0.0035; allow ~4 of them
    counts.forEach((c, i) => expect(Math.abs(c / draws - probabilities[i])).toBeLessThan(0.015));
    logits.dispose();
  });

  it('sharpens and flattens with temperature, reporting log softmax(logits / temperature)', async () => {
    // logits ln[1, 4] at temperature 2 are ln[1, 2]: probabilities [1/3, 2/3]
    const draws = 12_000;
    const logits = logitsOf(Array.from({ length: draws }, () => [0, Math.log(4)]));
    const { tokens, logProbs } = await sampleTokens(logits, 2, new Random(3));
    const ones = tokens.reduce((n, t) => n + t, 0);
    expect(Math.abs(ones / draws - 2 / 3)).toBeLessThan(0.02);
    const i = tokens.indexOf(0);
    expect(logProbs[i]).toBeCloseTo(Math.log(1 / 3), 5);
    logits.dispose();
  });

  it('gives the same tokens for the same seed and different ones for another', async () => {
    const logits = logitsOf(Array.from({ length: 64 }, (_, i) => [0, 0.5, (i % 5) / 5, 1]));
    const a = await sampleTokens(logits, 1, new Random(11));
    const b = await sampleTokens(logits, 1, new Random(11));
    const c = await sampleTokens(logits, 1, new Random(12));
    expect(a).toEqual(b);
    expect(Array.from(c.tokens)).not.toEqual(Array.from(a.tokens));
    logits.dispose();
  });

  it('leaves no tensors behind and does not dispose the logits', async () => {
    const logits = logitsOf([[1, 2, 3]]);
    const before = tf.memory().numTensors;
    await sampleTokens(logits, 1, new Random(1));
    await sampleTokens(logits, 0, new Random(1));
    expect(tf.memory().numTensors).toBe(before);
    expect(logits.isDisposed).toBe(false);
    logits.dispose();
  });

  it('refuses a negative or non-finite temperature', async () => {
    const logits = logitsOf([[1, 2]]);
    await expect(sampleTokens(logits, -1, new Random(1))).rejects.toThrow('temperature must be a finite number >= 0, got -1');
    await expect(sampleTokens(logits, NaN, new Random(1))).rejects.toThrow('got NaN');
    logits.dispose();
  });
});

describe('sampleFromLogits', () => {
  /** A Random whose next() returns the given values in turn. */
  const fixedRandom = (...values: number[]) => ({ next: () => values.shift()! }) as unknown as Random;

  it('inverts the cumulative distribution: u below 0.5 picks the first of [0.5, 0.3, 0.2]', () => {
    const row = Float32Array.from([0.5, 0.3, 0.2].map(Math.log));
    const picks = [0, 0.49, 0.51, 0.79, 0.81, 0.999].map((u) => sampleFromLogits(row, 1, 1, fixedRandom(u)).tokens[0]);
    expect(picks).toEqual([0, 0, 1, 1, 2, 2]);
  });

  it('never picks a zero-probability token, even for u a hair below 1', () => {
    const row = Float32Array.from([3, 3, -Infinity]);
    const { tokens, logProbs } = sampleFromLogits(row, 1, 1, fixedRandom(1 - Number.EPSILON / 2));
    expect(tokens[0]).toBe(1);
    expect(logProbs[0]).toBeCloseTo(Math.log(0.5), 6);
  });

  it('samples each row with its own draw and is stable for large logits', () => {
    const rows = Float32Array.from([1000, 1000, -1000, -1000]);
    const { tokens, logProbs } = sampleFromLogits(rows, 2, 1, fixedRandom(0.2, 0.7));
    expect(Array.from(tokens)).toEqual([0, 1]);
    expect(Array.from(logProbs)).toEqual([Math.fround(-Math.LN2), Math.fround(-Math.LN2)]);
    expect(() => sampleFromLogits(rows, 3, 1, fixedRandom(0))).toThrow('4 logits do not split into 3 rows');
  });
});
