/**
 * openRun, the one way the lab's worker and the CLI open a run: the KL reference is the start model
 * the saved state names (by fingerprint), else the first with a notice; a checkpoint of weights only
 * goes on counting from its step with a notice; a run that cannot open frees its weights.
 */
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { GPT } from '../src/core/model/gpt';
import { openRun, type StartModel } from '../src/core/rl/openRun';
import { Trainer } from '../src/core/rl/trainer';
import { randomModel } from './modelHelpers';
import { printsOne, TINY_MODEL, tinyTrainerConfig } from './tinyTrainer';

/** PPO with a KL term, so a step's `kl` tells which model the trainer took as reference. */
const settings = { ...tinyTrainerConfig({ algorithm: 'ppo' }), klCoef: 0.05 };

/** Two start models of different weights, named as the lab names them. */
function startModels(): StartModel[] {
  return [
    { model: randomModel(TINY_MODEL, 1), identity: { fingerprint: 'aaaa', source: 'start model' } },
    { model: randomModel(TINY_MODEL, 2), identity: { fingerprint: 'bbbb', source: 'base model' } },
  ];
}

/** Frees the trainers, their models and the start models. */
function dispose(trainers: Trainer[], starts: StartModel[]): void {
  for (const trainer of trainers) {
    trainer.dispose();
    trainer.model.dispose();
  }
  for (const start of starts) start.model.dispose();
}

/** The figures of a trainer's next step that depend on its reference. */
async function nextKl(trainer: Trainer): Promise<number | null> {
  return (await trainer.trainStep()).metrics.kl;
}

describe('openRun', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
  });

  it('takes as KL reference the start model the saved state names, not the first', async () => {
    const starts = startModels();
    const stopped = new Trainer(randomModel(TINY_MODEL, 3), settings, printsOne, { reference: starts[1].model });
    await stopped.trainStep();
    const progress = await stopped.saveState();

    const opened = openRun(settings, printsOne, { model: stopped.model.copy(), step: 1, saved: { ...progress, reference: { fingerprint: 'bbbb', source: 'anywhere' } } }, starts);
    expect(opened.reference).toEqual({ fingerprint: 'bbbb', source: 'base model' });
    expect(opened.notices).toEqual([]);
    expect(opened.trainer.step).toBe(1);
    // The same step as the trainer never stopped, which had the second model as reference.
    expect(await nextKl(opened.trainer)).toBe(await nextKl(stopped));
    dispose([opened.trainer, stopped], starts);
  });

  it('falls back to the first start model, and says so, when the one named is not at hand', async () => {
    const starts = startModels();
    const stopped = new Trainer(randomModel(TINY_MODEL, 3), settings, printsOne);
    await stopped.trainStep();
    const saved = { ...(await stopped.saveState()), reference: { fingerprint: 'cccc', source: 'cold start' } };
    const opened = openRun(settings, printsOne, { model: stopped.model.copy(), step: 1, saved }, starts);
    expect(opened.reference).toEqual(starts[0].identity);
    expect(opened.notices).toEqual(["the run's start model (cold start, fingerprint cccc) is not loaded here: its KL reference is now the start model (aaaa)"]);
    const withFirst = new Trainer(stopped.model.copy(), settings, printsOne, { reference: starts[0].model, progress: saved });
    expect(await nextKl(opened.trainer)).toBe(await nextKl(withFirst));
    dispose([opened.trainer, stopped, withFirst], starts);
  });

  it('goes on from a checkpoint of weights only at its step, with a notice; a new run starts at 0 with none', async () => {
    const starts = startModels();
    const weightsOnly = openRun(settings, printsOne, { model: randomModel(TINY_MODEL, 3), step: 4, saved: null }, starts);
    expect(weightsOnly.trainer.step).toBe(4);
    expect(weightsOnly.notices).toEqual([
      'the checkpoint at step 4 holds weights only (saved before checkpoints kept the run state): the run continues with a fresh optimizer and fresh random streams',
    ]);
    expect((await weightsOnly.trainer.trainStep()).metrics.step).toBe(5);
    const fresh = openRun(settings, printsOne, { model: GPT.init(TINY_MODEL, 1), step: 0, saved: null }, starts);
    expect(fresh.trainer.step).toBe(0);
    expect(fresh.notices).toEqual([]);
    dispose([weightsOnly.trainer, fresh.trainer], starts);
  });

  it('refuses a saved state of another step, or a batch the model cannot hold, and frees the weights it was given', async () => {
    const starts = startModels();
    const stopped = new Trainer(randomModel(TINY_MODEL, 3), settings, printsOne);
    const saved = { ...(await stopped.saveState()), reference: starts[0].identity };
    const before = tf.memory().numTensors;
    expect(() => openRun(settings, printsOne, { model: randomModel(TINY_MODEL, 4), step: 2, saved }, starts)).toThrow(
      "the checkpoint holds the run's state at step 0, not at step 2",
    );
    const tooLarge = { ...settings, promptsPerStep: 4096, groupSize: 64 };
    expect(() => openRun(tooLarge, printsOne, { model: randomModel(TINY_MODEL, 4), step: 0, saved: null }, starts)).toThrow(/of memory/);
    expect(() => openRun(settings, printsOne, { model: randomModel(TINY_MODEL, 4), step: 0, saved: null }, [])).toThrow('a run needs its start model as KL reference');
    expect(tf.memory().numTensors).toBe(before);
    dispose([stopped], starts);
  });
});
