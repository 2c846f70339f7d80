/** The learning-rate schedule: its values, and that the trainer's Adam steps at the scheduled rate. */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentConfig } from '../src/core/experiment';
import { learningRateAt } from '../src/core/optim/learningRateSchedule';
import { Trainer } from '../src/core/rl/trainer';
import { randomModel, useWasmBackend } from './modelHelpers';
import { printsOne, TINY_MODEL, tinyTrainerConfig } from './tinyTrainer';

describe('learningRateAt', () => {
  it('is constant at 0 decay steps, and lr / (1 + (t - 1) / N) otherwise', () => {
    const constant = { learningRate: 3e-5, learningRateDecaySteps: 0 };
    expect([1, 2, 80].map((t) => learningRateAt(constant, t))).toEqual([3e-5, 3e-5, 3e-5]);
    const decaying = { learningRate: 1.2e-4, learningRateDecaySteps: 4 };
    expect(learningRateAt(decaying, 1)).toBeCloseTo(1.2e-4, 15);
    expect(learningRateAt(decaying, 3)).toBeCloseTo(1.2e-4 / 1.5, 15);
    expect(learningRateAt(decaying, 5)).toBeCloseTo(0.6e-4, 15);
    expect(learningRateAt(decaying, 9)).toBeCloseTo(0.4e-4, 15);
  });
});

/**
 * One Adam update a step (one epoch, one minibatch of all 8 answers). No answer is right, so the
 * gradient is the value loss's: a random value head predicts non-zero returns.
 */
function config(learningRateDecaySteps: number): ExperimentConfig {
  return tinyTrainerConfig({ seed: 3, minibatchSize: 8, epochs: 1, learningRateDecaySteps });
}

const sandbox = printsOne;

/** The weights after each of two steps. */
async function twoSteps(learningRateDecaySteps: number): Promise<Float32Array[][]> {
  const model = randomModel(TINY_MODEL, 5);
  const trainer = new Trainer(model, config(learningRateDecaySteps), sandbox);
  const snapshots: Float32Array[][] = [];
  for (let i = 0; i < 2; i++) {
    await trainer.trainStep();
    snapshots.push(model.namedWeights().map((w) => w.tensor.dataSync().slice() as Float32Array));
  }
  trainer.dispose();
  model.dispose();
  return snapshots;
}

describe('the trainer under a schedule', () => {
  beforeAll(useWasmBackend);

  it('steps at lr at step 1 and at lr / 2 at step 2 when the rate halves after 1 step', async () => {
    const constant = await twoSteps(0);
    const halving = await twoSteps(1);
    // Step 1: the same rate, the same weights.
    halving[0].forEach((w, i) => expect(Array.from(w)).toEqual(Array.from(constant[0][i])));
    // Step 2 starts from the same weights with the same gradient and Adam moments: an Adam update is
    // proportional to its rate, so it moves each weight by half as much.
    let moved = 0;
    halving[1].forEach((w, i) => {
      for (let j = 0; j < w.length; j++) {
        const full = constant[1][i][j] - constant[0][i][j];
        const half = w[j] - halving[0][i][j];
        moved = Math.max(moved, Math.abs(full));
        expect(Math.abs(half - full / 2)).toBeLessThan(1e-6 + 1e-3 * Math.abs(full));
      }
    });
    expect(moved).toBeGreaterThan(1e-4);
  });
});
