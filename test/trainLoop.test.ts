/**
 * The CLI's step loop: a step that throws, or is interrupted by Ctrl-C while in flight, leaves the
 * run saved at the last completed step, from which a resumed trainer continues exactly as a run
 * that never stopped.
 */
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { Interrupt, trainToBudget, type CompletedStep, type SteppedTrainer } from '../src/cli/trainLoop';
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

/** Four steps of a run never stopped: their metrics, and the model they trained (the caller disposes it). */
async function straightRun(): Promise<{ expected: ReturnType<typeof reproducible>[]; straight: GPT }> {
  const straight = randomModel(TINY_MODEL, 4);
  const uninterrupted = new Trainer(straight, settings, sandbox);
  const expected: ReturnType<typeof reproducible>[] = [];
  for (let i = 0; i < 4; i++) expected.push(reproducible((await uninterrupted.trainStep()).metrics));
  uninterrupted.dispose();
  return { expected, straight };
}

/** A trainer resumed from a run saved at step 2 takes steps 3 and 4 as the run never stopped did, to the same weights; disposes all three models. */
async function expectResumesStraight(saved: CompletedStep, { expected, straight }: Awaited<ReturnType<typeof straightRun>>): Promise<void> {
  const start = randomModel(TINY_MODEL, 4);
  const resumed = new Trainer(saved.model, settings, sandbox, { reference: start, progress: saved.progress });
  const continued = [];
  for (let i = 0; i < 2; i++) continued.push(reproducible((await resumed.trainStep()).metrics));
  expect(continued).toEqual(expected.slice(2));
  expect(weightsOf(saved.model)).toEqual(weightsOf(straight));
  resumed.dispose();
  for (const m of [straight, start, saved.model]) m.dispose();
}

describe('trainToBudget', () => {
  beforeAll(useWasmBackend);

  it('saves the last completed step when a step fails, and a run resumed from it continues exactly', async () => {
    const tensorsBefore = tf.memory().numTensors;
    const neverStopped = await straightRun();

    const model = randomModel(TINY_MODEL, 4);
    const trainer = new Trainer(model, settings, sandbox);
    const recorded: StepRecord[] = [];
    const outcome = await trainToBudget(failingAfter(trainer, 3), model, 4, { record: (r) => void recorded.push(r), interrupt: new Interrupt() });
    expect(outcome.status).toBe('failed');
    expect(outcome.status === 'failed' && String(outcome.error)).toContain('failed to start');
    expect(recorded.map((r) => r.metrics.step)).toEqual([1, 2]);
    expect(outcome.saved.progress.step).toBe(2);
    expect(trainer.step).toBe(3);
    expect(weightsOf(outcome.saved.model)).not.toEqual(weightsOf(model));
    trainer.dispose();
    model.dispose();

    await expectResumesStraight(outcome.saved, neverStopped);
    expect(tf.memory().numTensors).toBe(tensorsBefore);
  });

  it('runs to the budget, or stops at an interrupt, with the weights and state of its last step saved', async () => {
    const tensorsBefore = tf.memory().numTensors;
    const model = randomModel(TINY_MODEL, 4);
    const trainer = new Trainer(model, settings, sandbox);
    let steps = 0;
    const saves: number[] = [];
    const done = await trainToBudget(trainer, model, 2, {
      record: () => void steps++,
      completed: async (saved) => void saves.push(saved.progress.step),
      interrupt: new Interrupt(),
    });
    expect(saves).toEqual([1, 2]);
    expect(done.status).toBe('done');
    expect([steps, done.saved.progress.step]).toEqual([2, 2]);
    expect(weightsOf(done.saved.model)).toEqual(weightsOf(model));
    done.saved.model.dispose();

    // Ctrl-C between steps (here while step 3 is recorded): step 3 is kept.
    const interrupt = new Interrupt();
    const stopped = await trainToBudget(trainer, model, 10, {
      record: () => {
        if (++steps >= 3) interrupt.request();
      },
      interrupt,
    });
    expect(stopped.status).toBe('interrupted');
    expect([steps, stopped.saved.progress.step]).toEqual([3, 3]);
    stopped.saved.model.dispose();
    trainer.dispose();
    model.dispose();
    expect(tf.memory().numTensors).toBe(tensorsBefore);
  });

  it('abandons a step in flight at Ctrl-C, finished or not, keeping the step before it, from which a resumed run continues exactly', async () => {
    const tensorsBefore = tf.memory().numTensors;
    const neverStopped = await straightRun();

    // Step 3 runs to its end (weights and streams advanced) but Ctrl-C came while it ran: dropped.
    const model = randomModel(TINY_MODEL, 4);
    const trainer = new Trainer(model, settings, sandbox);
    const interrupt = new Interrupt();
    const finishedLate: SteppedTrainer = {
      get step() {
        return trainer.step;
      },
      async trainStep() {
        const record = await trainer.trainStep();
        if (trainer.step === 3) interrupt.request();
        return record;
      },
      saveState: () => trainer.saveState(),
    };
    const recorded: number[] = [];
    const late = await trainToBudget(finishedLate, model, 4, { record: (r) => void recorded.push(r.metrics.step), interrupt });
    expect(late.status).toBe('interrupted');
    expect(recorded).toEqual([1, 2]);
    expect([trainer.step, late.saved.progress.step]).toEqual([3, 2]);

    // A step that never ends (an interpreter restarting under load): the loop does not wait for it.
    const hung = new Interrupt();
    const never: SteppedTrainer = {
      step: 0,
      trainStep: () => {
        setTimeout(() => hung.request(), 10);
        return new Promise<StepRecord>(() => {});
      },
      saveState: () => trainer.saveState(),
    };
    const stopped = await trainToBudget(never, model, 4, { record: () => expect.fail('an abandoned step was recorded'), interrupt: hung });
    expect(stopped.status).toBe('interrupted');
    expect(stopped.saved.progress.step).toBe(3);
    stopped.saved.model.dispose();
    trainer.dispose();
    model.dispose();

    await expectResumesStraight(late.saved, neverStopped);
    expect(tf.memory().numTensors).toBe(tensorsBefore);
  });
});
