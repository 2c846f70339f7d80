/**
 * The update shared over threads (core/rl/gradientHelpers.ts, node/gradients/): real worker threads,
 * each with its own tfjs wasm backend, compute some of a minibatch's chunks, and the update is the one
 * a single thread makes, bit for bit; a thread that fails fails the update with its reason and leaves
 * no tensor behind.
 */
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../src/core/experiment';
import { chunkThreads, type GradientHelper } from '../src/core/rl/gradientHelpers';
import { lengthChunks, minibatchGradients } from '../src/core/rl/minibatchGradients';
import { helperChunkGradients } from '../src/core/rl/helperGradients';
import { policyUpdate } from '../src/core/rl/policyUpdate';
import { Random } from '../src/core/random';
import { VOCAB_SIZE } from '../src/core/tokenizer';
import { startGradientThreads, type GradientThreads } from '../src/node/gradients/gradientThreads';
import { randomModel, useWasmBackend } from './modelHelpers';
import { trainingRows as sequences } from './trainingRows';

const MODEL = { vocabSize: VOCAB_SIZE, contextLength: 64, nLayer: 1, nHead: 2, nEmbd: 16, mlpRatio: 2 };
/** So small a chunk overhead that every row length is a chunk of its own: many chunks to share out. */
const MANY_CHUNKS = 1e-6;

/** A helper that counts the chunks it was given, passing them on to a real thread. */
function counting(helper: GradientHelper): GradientHelper & { chunks: number } {
  const counted = {
    chunks: 0,
    chunkGradients: (...args: Parameters<GradientHelper['chunkGradients']>) => {
      counted.chunks += args[1].length;
      return helper.chunkGradients(...args);
    },
  };
  return counted;
}

const values = (grads: tf.NamedTensorMap) => Object.entries(grads).map(([name, g]) => [name, Array.from(g.dataSync())]);

describe('chunkThreads', () => {
  it('gives each chunk, longest first, to the thread with the least work, a helper starting with the hand-off cost', () => {
    // 5 -> this thread (0 < 2); 4 -> the helper (2 < 5); 3 -> this thread (5 < 6); 1 -> the helper (6 < 8).
    expect(chunkThreads([5, 1, 4, 3], 2, 2)).toEqual([0, 1, 1, 0]);
    // A hand-off dearer than the whole minibatch: nothing goes out.
    expect(chunkThreads([5, 1, 4, 3], 2, 100)).toEqual([0, 0, 0, 0]);
    // Ties go to the lower thread; one thread takes everything.
    expect(chunkThreads([2, 2, 2], 3, 0)).toEqual([0, 1, 2]);
    expect(chunkThreads([3, 1], 1, 0)).toEqual([0, 0]);
  });
});

describe('helperChunkGradients', () => {
  beforeAll(useWasmBackend);

  it("leaves none of its tensors behind (the model it builds from the weights sent, each chunk's gradient), however many jobs it does", () => {
    const model = randomModel(MODEL, 4);
    const sent = { config: MODEL, weights: Object.fromEntries(model.namedWeights().map(({ name, tensor }) => [name, tensor.dataSync() as Float32Array])) };
    const chunks = lengthChunks(sequences(12, 3), MANY_CHUNKS).map((rows) => ({ sequences: rows, share: 0.1 }));
    const before = tf.memory().numTensors;
    for (let job = 0; job < 3; job++) {
      const results = helperChunkGradients(sent, chunks, PRESETS.classroom);
      expect(results).toHaveLength(chunks.length);
      expect(Object.keys(results[0].grads).sort()).toEqual(model.namedWeights().map((w) => w.name).sort());
    }
    expect(tf.memory().numTensors).toBe(before);
    model.dispose();
  });
});

describe('gradient threads', () => {
  let threads: GradientThreads;
  beforeAll(async () => {
    await useWasmBackend();
    threads = await startGradientThreads(2, 'wasm');
  }, 60_000);
  afterAll(() => threads.close());

  it("make the minibatch's gradient and figures of one thread, bit for bit, with chunks computed on each thread (PPO, value loss, KL)", async () => {
    const model = randomModel(MODEL, 4);
    const config = { ...PRESETS.classroom, klCoef: 0.05 };
    const rows = sequences(24, 2);
    const helpers = threads.helpers.map(counting);
    const before = tf.memory().numTensors;
    const alone = await minibatchGradients(model, rows, config, MANY_CHUNKS);
    const shared = await minibatchGradients(model, rows, config, MANY_CHUNKS, helpers);
    const chunks = lengthChunks(rows, MANY_CHUNKS).length;
    expect(chunks).toBeGreaterThan(10);
    expect(helpers.map((h) => h.chunks).every((n) => n > 0)).toBe(true);
    expect(helpers[0].chunks + helpers[1].chunks).toBeLessThan(chunks);
    expect(values(shared.grads)).toEqual(values(alone.grads));
    expect([shared.clipFraction, shared.approxKl, shared.valueLoss, shared.entropy]).toEqual([alone.clipFraction, alone.approxKl, alone.valueLoss, alone.entropy]);
    expect(alone.approxKl).toBeGreaterThan(0);
    tf.dispose([...Object.values(alone.grads), ...Object.values(shared.grads)]);
    expect(tf.memory().numTensors).toBe(before);
    model.dispose();
  });

  it('leave the weights of a whole update (two epochs of minibatches, Reinforce++ without a critic) as one thread leaves them', async () => {
    // Minibatches of 24 rows of 11 to 47 tokens: the update's own chunk costs cut each into more than one chunk.
    const config = { ...PRESETS.classroom, algorithm: 'reinforce++' as const, epochs: 2, minibatchSize: 24 };
    const rows = sequences(48, 5);
    const helpers = threads.helpers.map(counting);
    const updated = async (helpers: readonly GradientHelper[]) => {
      const model = randomModel(MODEL, 6);
      const optimizer = tf.train.adam(1e-2);
      const figures = await policyUpdate(model, optimizer, rows, config, new Random(1), helpers);
      const weights = model.trainableVariables().map((w) => Array.from(w.dataSync()));
      optimizer.dispose();
      model.dispose();
      return { figures, weights };
    };
    const before = tf.memory().numTensors;
    const alone = await updated([]);
    const shared = await updated(helpers);
    expect(helpers.map((h) => h.chunks).reduce((n, c) => n + c)).toBeGreaterThan(0);
    expect(shared).toEqual(alone);
    expect(alone.figures.valueLoss).toBeNull();
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('a gradient thread that fails', () => {
  beforeAll(useWasmBackend);

  it('fails the minibatch with its reason, and no tensor is left behind', async () => {
    const threads = await startGradientThreads(1, 'wasm');
    // A job the thread cannot do: weights sent as if for a wider model, which GPT.fromWeights refuses there.
    const [thread] = threads.helpers;
    const misreported: GradientHelper = { chunkGradients: (model, chunks, config) => thread.chunkGradients({ ...model, config: { ...model.config, nEmbd: 32 } }, chunks, config) };
    const model = randomModel(MODEL, 4);
    const before = tf.memory().numTensors;
    try {
      await expect(minibatchGradients(model, sequences(24, 2), PRESETS.classroom, MANY_CHUNKS, [misreported])).rejects.toThrow(/^a gradient thread failed: weight "\w+" has \d+ values, expected \d+/);
      expect(tf.memory().numTensors).toBe(before);
      await threads.close();
      await expect(minibatchGradients(model, sequences(24, 2), PRESETS.classroom, MANY_CHUNKS, threads.helpers)).rejects.toThrow('the gradient threads were closed');
      expect(tf.memory().numTensors).toBe(before);
    } finally {
      model.dispose();
      await threads.close();
    }
  }, 60_000);
});
