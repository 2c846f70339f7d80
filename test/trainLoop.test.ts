/**
 * The CLI's step loop: a step that throws leaves the run saved at the last completed step, from
 * which a resumed trainer continues exactly as a run that never failed.
 */
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { trainToBudget, type SteppedTrainer } from '../src/cli/trainLoop';
import type { GPT } from '../src/core/model/gpt';
import type { StepMetrics } from '../src/core/metrics/stepMetrics';
import { Trainer, type StepRecord } from '../src/core/rl/trainer';
import { randomModel, useWasmBackend } from './modelHelpers';
import { printsOne, TINY_MODEL, tinyTrainerConfig } from './tinyTrainer';

/** PPO on a random model whose value head moves the weights at every step, reward or not. */
const settings = tinyTrainerConfig({ seed: 11 });
const sandbox = printsOne;

const weightsOf = (model: GPT) => model.namedWeights().map((w) => Array.from(w.tensor.dataSync()));

function reproducible(m: StepMetrics) {
  const { seconds: _s, tokensPerSecond: _t, ...rest } = m;
  return rest;
}

/** A trainer whose step `failAt` runs to its end (weights, streams and counter all advanced), then throws. */
function failingAfter(trainer: Trainer, failAt: number): SteppedTrainer {
  return {
    get step() {
      return trainer.step;
    },
    async trainStep() {
      const record = await trainer.trainStep();
      if (trainer.step === failAt) throw new Error('sandbox interpreter failed to start');
      return record;
    },
    saveState: () => trainer.saveState(),
  };
}

describe('trainToBudget', () => {
  beforeAll(useWasmBackend);

  it('saves the last completed step when a step fails, and a run resumed from it continues exactly', async () => {
    const tensorsBefore = tf.memory().numTensors;
    const straight = randomModel(TINY_MODEL, 4);
    const uninterrupted = new Trainer(straight, settings, sandbox);
    const expected: ReturnType<typeof reproducible>[] = [];
    for (let i = 0; i < 4; i++) expected.push(reproducible((await uninterrupted.trainStep()).metrics));
    uninterrupted.dispose();

    const model = randomModel(TINY_MODEL, 4);
    const trainer = new Trainer(model, settings, sandbox);
    const recorded: StepRecord[] = [];
    const outcome = await trainToBudget(failingAfter(trainer, 3), model, 4, { record: (r) => void recorded.push(r), interrupted: () => false });
    expect(outcome.status).toBe('failed');
    expect(outcome.status === 'failed' && String(outcome.error)).toContain('failed to start');
    expect(recorded.map((r) => r.metrics.step)).toEqual([1, 2]);
    expect(outcome.saved.progress.step).toBe(2);
    expect(trainer.step).toBe(3);
    expect(weightsOf(outcome.saved.model)).not.toEqual(weightsOf(model));
    trainer.dispose();
    model.dispose();

    const start = randomModel(TINY_MODEL, 4);
    const resumed = new Trainer(outcome.saved.model, settings, sandbox, { reference: start, progress: outcome.saved.progress });
    const continued = [];
    for (let i = 0; i < 2; i++) continued.push(reproducible((await resumed.trainStep()).metrics));
    expect(continued).toEqual(expected.slice(2));
    expect(weightsOf(outcome.saved.model)).toEqual(weightsOf(straight));
    resumed.dispose();
    for (const m of [straight, start, outcome.saved.model]) m.dispose();
    expect(tf.memory().numTensors).toBe(tensorsBefore);
  });

  it('runs to the budget, or stops at an interrupt, with the weights and state of its last step saved', async () => {
    const tensorsBefore = tf.memory().numTensors;
    const model = randomModel(TINY_MODEL, 4);
    const trainer = new Trainer(model, settings, sandbox);
    let steps = 0;
    const done = await trainToBudget(trainer, model, 2, { record: () => void steps++, interrupted: () => false });
    expect(done.status).toBe('done');
    expect([steps, done.saved.progress.step]).toEqual([2, 2]);
    expect(weightsOf(done.saved.model)).toEqual(weightsOf(model));
    done.saved.model.dispose();

    const stopped = await trainToBudget(trainer, model, 10, { record: () => void steps++, interrupted: () => steps >= 3 });
    expect(stopped.status).toBe('interrupted');
    expect([steps, stopped.saved.progress.step]).toEqual([3, 3]);
    stopped.saved.model.dispose();
    trainer.dispose();
    model.dispose();
    expect(tf.memory().numTensors).toBe(tensorsBefore);
  });
});
