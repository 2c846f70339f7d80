import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../src/core/experiment';
import { VOCAB_SIZE } from '../src/core/tokenizer';
import { lengthChunks, minibatchGradients } from '../src/core/rl/minibatchGradients';
import type { TrainingSequence } from '../src/core/rl/trainingBatch';
import { Random } from '../src/core/random';
import { randomModel, useWasmBackend } from './modelHelpers';

beforeAll(useWasmBackend);

const MODEL = { vocabSize: VOCAB_SIZE, contextLength: 64, nLayer: 1, nHead: 2, nEmbd: 16, mlpRatio: 2 };

/** Sequences of 6 prompt tokens and 4 to 40 response tokens, some masked as environment tokens, random figures. */
function sequences(count: number, seed: number): TrainingSequence[] {
  const rng = new Random(seed);
  return Array.from({ length: count }, () => {
    const response = rng.int(4, 40);
    const ids = Array.from({ length: 7 + response }, () => rng.int(3, VOCAB_SIZE - 1));
    const mask = Array.from({ length: response }, (_, i) => (i > 2 && i < 8 && response > 20 ? 0 : 1));
    const numbers = () => Array.from({ length: response }, () => rng.normal());
    return {
      ids,
      responseStart: 7,
      policyMask: mask,
      oldLogProbs: numbers().map((x) => -2 + 0.1 * x),
      oldValues: numbers(),
      advantages: numbers(),
      returns: numbers(),
      refLogProbs: numbers().map((x) => -2 + 0.1 * x),
    };
  });
}

describe('minibatchGradients', () => {
  it('sorts rows by length into chunks', () => {
    const rows = sequences(5, 1);
    const chunks = lengthChunks(rows, 2);
    expect(chunks.map((c) => c.length)).toEqual([2, 2, 1]);
    const lengths = chunks.flat().map((s) => s.ids.length);
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
  });

  it('chunked by length, gives the gradient and figures of the whole minibatch at once (PPO with value loss and KL)', async () => {
    const model = randomModel(MODEL, 4);
    const config = { ...PRESETS.classroom, klCoef: 0.05 };
    const rows = sequences(24, 2);
    const before = tf.memory().numTensors;
    const whole = await minibatchGradients(model, rows, config, rows.length);
    const chunked = await minibatchGradients(model, rows, config, 5);
    for (const name of Object.keys(whole.grads)) {
      const a = whole.grads[name].dataSync();
      const b = chunked.grads[name].dataSync();
      const scale = Math.max(...Array.from(a, Math.abs));
      expect(scale).toBeGreaterThan(0);
      a.forEach((x, i) => expect(Math.abs(x - b[i])).toBeLessThan(1e-5 + 1e-4 * scale));
    }
    expect(chunked.clipFraction).toBeCloseTo(whole.clipFraction, 5);
    expect(chunked.valueLoss).toBeCloseTo(whole.valueLoss, 5);
    expect(chunked.entropy).toBeCloseTo(whole.entropy, 5);
    tf.dispose([...Object.values(whole.grads), ...Object.values(chunked.grads)]);
    expect(tf.memory().numTensors).toBe(before);
    model.dispose();
  });
});
