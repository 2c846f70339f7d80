/**
 * A step that fails after its policy update has moved the weights (issue 26) leaves the model and
 * the optimizer as the last step left them, so what the lab saves next is never half-updated, and
 * the retried step is the one never failed. The failure is put into tfjs Adam's applyGradients,
 * which the update calls once per minibatch: a throw there after the first minibatches is what the
 * wasm backend does when an allocation of a later Adam step does not fit its heap.
 */
import * as tf from '@tensorflow/tfjs-core';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StepMetrics } from '../src/core/metrics/stepMetrics';
import { GPT } from '../src/core/model/gpt';
import { Trainer } from '../src/core/rl/trainer';
import { useNodeBackend } from '../src/node/tfBackend';
import { printsOne, TINY_MODEL, tinyTrainerConfig } from './tinyTrainer';

// 2 prompts x 4 answers in minibatches of 4, two passes: four Adam steps per RL step.
const CONFIG = tinyTrainerConfig();
const ADAM_STEPS_PER_STEP = 4;

function reproducible(m: StepMetrics) {
  const { seconds: _s, tokensPerSecond: _t, ...rest } = m;
  return rest;
}

const weightsOf = (model: GPT) => model.namedWeights().map((w) => Float32Array.from(w.tensor.dataSync()));

/**
 * A random tiny model whose critic predicts 0.5 everywhere. It never earns a reward, so with a zero
 * critic every advantage would be 0 and an update would move nothing.
 */
function movingModel(): GPT {
  const init = GPT.init(TINY_MODEL, 1);
  const weights = Object.fromEntries(init.namedWeights().map(({ name, tensor }) => [name, Float32Array.from(tensor.dataSync())]));
  init.dispose();
  weights['valueHead.b'] = new Float32Array([0.5]);
  return GPT.fromWeights(TINY_MODEL, weights);
}

/** Three steps of a trainer never interrupted: their figures and the weights after each. */
async function uninterrupted(): Promise<{ metrics: ReturnType<typeof reproducible>[]; weights: Float32Array[][] }> {
  const model = movingModel();
  const trainer = new Trainer(model, CONFIG, printsOne);
  const metrics: ReturnType<typeof reproducible>[] = [];
  const weights: Float32Array[][] = [];
  for (let i = 0; i < 3; i++) {
    metrics.push(reproducible((await trainer.trainStep()).metrics));
    weights.push(weightsOf(model));
  }
  trainer.dispose();
  model.dispose();
  return { metrics, weights };
}

/**
 * Makes the `failAt`-th Adam step from now throw as an out-of-memory wasm heap does, and records
 * whether the weights had moved from `before` by then (the failure came mid-update).
 */
function failAdamStep(model: GPT, failAt: number, before: Float32Array[]): { movedWhenFailed: boolean | null } {
  const seen = { movedWhenFailed: null as boolean | null };
  const applyGradients = tf.AdamOptimizer.prototype.applyGradients;
  let calls = 0;
  vi.spyOn(tf.AdamOptimizer.prototype, 'applyGradients').mockImplementation(function (this: tf.AdamOptimizer, grads) {
    if (++calls === failAt) {
      seen.movedWhenFailed = weightsOf(model).some((w, i) => w.some((x, j) => x !== before[i][j]));
      throw new WebAssembly.RuntimeError('memory access out of bounds');
    }
    applyGradients.call(this, grads);
  });
  return seen;
}

beforeAll(async () => {
  await useNodeBackend('wasm');
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a step that fails during its policy update', () => {
  it.each([
    ['the first step (before it, Adam has no moments yet)', 0],
    ['a later step', 1],
  ])('in %s: weights, optimizer and step count as before it, no tensor left over, and the retried step is the one never failed', async (_which, stepsBefore) => {
    const expected = await uninterrupted();
    const model = movingModel();
    const trainer = new Trainer(model, CONFIG, printsOne);
    for (let i = 0; i < stepsBefore; i++) await trainer.trainStep();
    const weightsBefore = weightsOf(model);
    const stateBefore = await trainer.saveState();
    const tensorsBefore = tf.memory().numTensors;

    const failure = failAdamStep(model, 3, weightsBefore);
    await expect(trainer.trainStep()).rejects.toThrow(
      `step ${stepsBefore + 1} ran out of memory (memory access out of bounds) with Prompts per step × Answers per question = 2 × 4 = 8 answers written at once: lower one of them; the run stays at step ${stepsBefore}`,
    );
    expect(failure.movedWhenFailed, 'two Adam steps had moved the weights when the third failed').toBe(true);
    vi.restoreAllMocks();

    expect(trainer.step).toBe(stepsBefore);
    expect(weightsOf(model)).toEqual(weightsBefore);
    expect(await trainer.saveState()).toEqual(stateBefore);
    expect(tf.memory().numTensors).toBe(tensorsBefore);

    const retried = reproducible((await trainer.trainStep()).metrics);
    expect(retried).toEqual(expected.metrics[stepsBefore]);
    expect(weightsOf(model)).toEqual(expected.weights[stepsBefore]);
    // And the run goes on as one never failed: its Adam state was put back whole.
    expect(reproducible((await trainer.trainStep()).metrics)).toEqual(expected.metrics[stepsBefore + 1]);
    expect(weightsOf(model)).toEqual(expected.weights[stepsBefore + 1]);
    trainer.dispose();
    model.dispose();
  });

  it('a step whose every Adam step ran but which fails after (its held-out test) is undone too', async () => {
    const config = { ...CONFIG, testEvery: 1 };
    const model = movingModel();
    const trainer = new Trainer(model, config, printsOne);
    const weightsBefore = weightsOf(model);
    const stateBefore = await trainer.saveState();
    let updates = 0;
    const applyGradients = tf.AdamOptimizer.prototype.applyGradients;
    vi.spyOn(tf.AdamOptimizer.prototype, 'applyGradients').mockImplementation(function (this: tf.AdamOptimizer, grads) {
      updates++;
      applyGradients.call(this, grads);
    });
    let movedWhenFailed = false;
    vi.spyOn(trainer, 'evaluateTest').mockImplementationOnce(async () => {
      movedWhenFailed = weightsOf(model).some((w, i) => w.some((x, j) => x !== weightsBefore[i][j]));
      throw new Error('the sandbox crashed');
    });
    await expect(trainer.trainStep()).rejects.toThrow(/^the sandbox crashed$/);
    expect(updates).toBe(ADAM_STEPS_PER_STEP);
    expect(movedWhenFailed).toBe(true);
    expect(trainer.step).toBe(0);
    expect(weightsOf(model)).toEqual(weightsBefore);
    expect(await trainer.saveState()).toEqual(stateBefore);
    trainer.dispose();
    model.dispose();
  });
});
