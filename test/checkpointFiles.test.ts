import * as tf from '@tensorflow/tfjs-core';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GPT } from '../src/core/model/gpt';
import { Trainer } from '../src/core/rl/trainer';
import type { TrainerState } from '../src/core/run/trainerState';
import { CheckpointError, finishCheckpointSwap, loadCheckpointDir, saveCheckpointDir, saveCheckpointDirAtomically } from '../src/node/checkpointFiles';
import { randomModel, TINY_CONFIG, useWasmBackend } from './modelHelpers';
import { printsOne, TINY_MODEL, tinyTrainerConfig } from './tinyTrainer';

let root: string;
beforeAll(async () => {
  await useWasmBackend();
  root = await mkdtemp(join(tmpdir(), 'tir-checkpoint-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('checkpoint directories', () => {
  it('saves model.json and weights.bin, creating the directory, and loads them back', async () => {
    const model = randomModel(TINY_CONFIG, 30);
    const dir = join(root, 'run', 'checkpoint');
    await saveCheckpointDir(dir, model, { step: 12 });
    const manifest = JSON.parse(await readFile(join(dir, 'model.json'), 'utf8'));
    expect(manifest.format).toBe('tir-lab-checkpoint');
    expect((await stat(join(dir, 'weights.bin'))).size).toBe(model.parameterCount() * 4);
    const loaded = await loadCheckpointDir(dir);
    expect(loaded.meta).toEqual({ step: 12 });
    const tokens = tf.tensor2d([[3, 1, 4, 1]], [1, 4], 'int32');
    const logits = (m: typeof model) => tf.tidy(() => m.forward(tokens).logits.dataSync());
    expect(logits(loaded.model)).toEqual(logits(model));
    tokens.dispose();
    loaded.model.dispose();
    model.dispose();
  });

  it('says which file is missing', async () => {
    const dir = join(root, 'half');
    const model = randomModel(TINY_CONFIG, 31);
    await saveCheckpointDir(dir, model, {});
    model.dispose();
    await rm(join(dir, 'weights.bin'));
    await expect(loadCheckpointDir(dir)).rejects.toThrow(`checkpoint directory ${dir} has no weights.bin`);
    await expect(loadCheckpointDir(join(root, 'nowhere'))).rejects.toThrow('has no model.json');
  });

  it('names the directory when its contents are refused', async () => {
    const dir = join(root, 'bad');
    const model = randomModel(TINY_CONFIG, 32);
    await saveCheckpointDir(dir, model, {});
    model.dispose();
    const manifest = JSON.parse(await readFile(join(dir, 'model.json'), 'utf8'));
    await writeFile(join(dir, 'model.json'), JSON.stringify({ ...manifest, formatVersion: 9 }));
    await expect(loadCheckpointDir(dir)).rejects.toThrow(`${dir}: unknown checkpoint formatVersion 9`);
    await writeFile(join(dir, 'model.json'), '{ not json');
    await expect(loadCheckpointDir(dir)).rejects.toThrow(`${join(dir, 'model.json')} is not valid JSON`);
  });
});

/** A run's state after one PPO step of a tiny model (Adam's moments filled), and the model. */
async function steppedRun(): Promise<{ model: GPT; state: TrainerState }> {
  const model = randomModel(TINY_MODEL, 5);
  const config = tinyTrainerConfig({ seed: 5 });
  const trainer = new Trainer(model, config, printsOne);
  await trainer.trainStep();
  const state = { ...(await trainer.saveState()), config, reference: { fingerprint: '0123456789abcdef', source: 'base' } };
  trainer.dispose();
  return { model, state };
}

/** `model` with one value of its first weight (wte) set to `value`. */
function withValue(model: GPT, value: number): GPT {
  const weights = Object.fromEntries(model.namedWeights().map(({ name, tensor }) => [name, new Float32Array(tensor.dataSync())]));
  weights.wte[3] = value;
  return GPT.fromWeights(model.config, weights);
}

describe('a checkpoint that cannot be what it says', () => {
  it('refuses a weights.bin from another save beside model.json (same size, another step)', async () => {
    const { model, state } = await steppedRun();
    const [first, second] = [join(root, 'pair', 'first'), join(root, 'pair', 'second')];
    await saveCheckpointDir(first, model, { step: 1 }, state);
    const moved = withValue(model, 0.5);
    await saveCheckpointDir(second, moved, { step: 2 }, { ...state, step: 2 });
    await copyFile(join(second, 'weights.bin'), join(first, 'weights.bin'));
    const refusal = loadCheckpointDir(first);
    await expect(refusal).rejects.toBeInstanceOf(CheckpointError);
    await expect(refusal).rejects.toThrow(
      `${join(first, 'weights.bin')} is not the weights ${join(first, 'model.json')} was saved with (its SHA-256 differs from the recorded one): the two files come from different saves`,
    );
    // Saved again, the pair is one save's: it loads.
    await saveCheckpointDir(first, model, { step: 1 }, state);
    const loaded = await loadCheckpointDir(first);
    expect(loaded.trainer?.step).toBe(1);
    loaded.model.dispose();
    for (const m of [model, moved]) m.dispose();
  });

  it('says a weights.bin cut short is cut, not from another save (its hash differs as well), and keeps no tensor', async () => {
    const { model, state } = await steppedRun();
    const dir = join(root, 'cut');
    await saveCheckpointDir(dir, model, { step: 1 }, state);
    const whole = await readFile(join(dir, 'weights.bin'));
    const tensors = tf.memory().numTensors;
    await writeFile(join(dir, 'weights.bin'), whole.subarray(0, 100));
    await expect(loadCheckpointDir(dir)).rejects.toThrow(`${dir}: checkpoint weights buffer has 100 bytes, too short for weight "wte"`);
    // Whole but other values: another save's, and the model built to check its layout is freed.
    await writeFile(join(dir, 'weights.bin'), Buffer.alloc(whole.byteLength));
    await expect(loadCheckpointDir(dir)).rejects.toThrow('the two files come from different saves');
    expect(tf.memory().numTensors).toBe(tensors);
    model.dispose();
  });

  it('refuses NaN or infinite weights and optimizer moments (a run that diverged), naming the tensor', async () => {
    const { model, state } = await steppedRun();
    const nan = withValue(model, NaN);
    await saveCheckpointDir(join(root, 'nan'), nan, {}, state);
    await expect(loadCheckpointDir(join(root, 'nan'))).rejects.toThrow(
      `${join(root, 'nan')}: weight "wte" has 1 value that is NaN or infinite: the run it was saved from diverged`,
    );
    const moments = state.optimizer.firstMoments.map((m) => m.slice());
    moments[1].fill(Infinity, 0, 2);
    await saveCheckpointDir(join(root, 'inf'), model, {}, { ...state, optimizer: { ...state.optimizer, firstMoments: moments } });
    const name = model.namedWeights()[1].name;
    await expect(loadCheckpointDir(join(root, 'inf'))).rejects.toThrow(`optimizer moment "${name}/m" has 2 values that are NaN or infinite`);
    const tensors = tf.memory().numTensors;
    await expect(loadCheckpointDir(join(root, 'inf'))).rejects.toBeInstanceOf(CheckpointError);
    expect(tf.memory().numTensors).toBe(tensors);
    for (const m of [model, nan]) m.dispose();
  });
});

describe('saving a run checkpoint atomically', () => {
  it('replaces the directory whole, leaving no temporary directory or file behind', async () => {
    const { model, state } = await steppedRun();
    const dir = join(root, 'atomic', 'checkpoint');
    saveCheckpointDirAtomically(dir, model, { step: 1 }, state);
    const moved = withValue(model, 0.25);
    saveCheckpointDirAtomically(dir, moved, { step: 2 }, { ...state, step: 2 });
    expect((await readdir(join(root, 'atomic'))).sort()).toEqual(['checkpoint']);
    expect((await readdir(dir)).sort()).toEqual(['model.json', 'weights.bin']);
    const loaded = await loadCheckpointDir(dir);
    expect([loaded.meta.step, loaded.trainer?.step]).toEqual([2, 2]);
    expect(loaded.model.namedWeights()[0].tensor.dataSync()[3]).toBe(0.25);
    for (const m of [model, moved, loaded.model]) m.dispose();
  });

  it('a save killed between its two renames is completed with the new checkpoint; one killed while writing keeps the old', async () => {
    const { model, state } = await steppedRun();
    const dir = join(root, 'swap', 'checkpoint');
    saveCheckpointDirAtomically(dir, model, { step: 1 }, state);
    const moved = withValue(model, 0.75);
    // Killed while writing dir.new: dir is whole and is what loads; the next save clears dir.new.
    await saveCheckpointDir(`${dir}.new`, moved, { step: 2 }, { ...state, step: 2 });
    await writeFile(join(`${dir}.new`, 'weights.bin'), 'cut');
    await finishCheckpointSwap(dir);
    const old = await loadCheckpointDir(dir);
    expect(old.meta.step).toBe(1);
    old.model.dispose();
    // Killed after dir went to dir.old and before dir.new came in.
    await saveCheckpointDir(`${dir}.new`, moved, { step: 2 }, { ...state, step: 2 });
    await rename(dir, `${dir}.old`);
    await finishCheckpointSwap(dir);
    expect(existsSync(`${dir}.old`) || existsSync(`${dir}.new`)).toBe(false);
    const swapped = await loadCheckpointDir(dir);
    expect(swapped.meta.step).toBe(2);
    // Nothing to finish: nothing changes.
    await mkdir(`${dir}.old`);
    await finishCheckpointSwap(dir);
    expect((await loadCheckpointDir(dir).then((c) => (c.model.dispose(), c.meta.step)))).toBe(2);
    for (const m of [model, moved, swapped.model]) m.dispose();
  });
});
