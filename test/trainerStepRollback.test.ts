/**
 * A step that is stopped (Pause) or fails before its update leaves the trainer where the last step
 * left it: the same step count, random streams and weights, so the run goes on with exactly the
 * numbers of a run never interrupted, and nothing leaks.
 */
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { RolloutStopped } from '../src/core/rollout/rollout';
import type { StepMetrics } from '../src/core/metrics/stepMetrics';
import { GPT } from '../src/core/model/gpt';
import { Trainer } from '../src/core/rl/trainer';
import { useNodeBackend } from '../src/node/tfBackend';
import { printsOne, TINY_MODEL, tinyTrainerConfig } from './tinyTrainer';

const CONFIG = tinyTrainerConfig();

function reproducible(m: StepMetrics) {
  const { seconds: _s, tokensPerSecond: _t, ...rest } = m;
  return rest;
}

/** Two steps of a trainer never interrupted: their figures and the weights after them. */
async function uninterrupted(): Promise<{ metrics: ReturnType<typeof reproducible>[]; weights: Float32Array[] }> {
  const model = GPT.init(TINY_MODEL, 1);
  const trainer = new Trainer(model, CONFIG, printsOne);
  const metrics = [reproducible((await trainer.trainStep()).metrics), reproducible((await trainer.trainStep()).metrics)];
  const weights = model.namedWeights().map((w) => w.tensor.dataSync() as Float32Array);
  trainer.dispose();
  model.dispose();
  return { metrics, weights };
}

beforeAll(async () => {
  await useNodeBackend('wasm');
});

describe('a step dropped before its update', () => {
  it.each([
    ['before its first token step', 1],
    ['after some token steps', 6],
  ])('stopped %s: RolloutStopped, the step count kept, and the next steps are those of a run never stopped', async (_when, stopAtCall) => {
    const expected = await uninterrupted();
    const model = GPT.init(TINY_MODEL, 1);
    const trainer = new Trainer(model, CONFIG, printsOne);
    const first = reproducible((await trainer.trainStep()).metrics);
    const tensors = tf.memory().numTensors;
    let calls = 0;
    await expect(trainer.trainStep(undefined, async () => ++calls >= stopAtCall)).rejects.toBeInstanceOf(RolloutStopped);
    expect(calls).toBe(stopAtCall);
    expect(trainer.step).toBe(1);
    expect(tf.memory().numTensors).toBe(tensors);
    const second = reproducible((await trainer.trainStep(undefined, async () => false)).metrics);
    expect([first, second]).toEqual(expected.metrics);
    model.namedWeights().forEach((w, i) => expect(w.tensor.dataSync()).toEqual(expected.weights[i]));
    trainer.dispose();
    model.dispose();
  });

  it('out of memory: says what to change, keeps the step count, and the retried step is the one never failed', async () => {
    const expected = await uninterrupted();
    const model = GPT.init(TINY_MODEL, 1);
    const trainer = new Trainer(model, CONFIG, printsOne);
    await trainer.trainStep();
    // What wasm's heap throws when a cache does not fit.
    const newCache = vi.spyOn(model, 'newCache').mockImplementationOnce(() => {
      throw new WebAssembly.RuntimeError('memory access out of bounds');
    });
    await expect(trainer.trainStep()).rejects.toThrow(
      'step 2 ran out of memory (memory access out of bounds) with Prompts per step × Answers per question = 2 × 4 = 8 answers written at once: lower one of them; the run stays at step 1',
    );
    expect(trainer.step).toBe(1);
    newCache.mockRestore();
    expect(reproducible((await trainer.trainStep()).metrics)).toEqual(expected.metrics[1]);
    trainer.dispose();
    model.dispose();
  });

  it('a failure other than memory is passed on as it is, the step count kept', async () => {
    const model = GPT.init(TINY_MODEL, 1);
    const trainer = new Trainer(model, CONFIG, printsOne);
    vi.spyOn(model, 'newCache').mockImplementationOnce(() => {
      throw new Error('the sandbox crashed');
    });
    await expect(trainer.trainStep()).rejects.toThrow(/^the sandbox crashed$/);
    expect(trainer.step).toBe(0);
    trainer.dispose();
    model.dispose();
  });
});
