import * as tf from '@tensorflow/tfjs-core';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCheckpointDir, saveCheckpointDir } from '../src/node/checkpointFiles';
import { randomModel, TINY_CONFIG, useWasmBackend } from './modelHelpers';

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
