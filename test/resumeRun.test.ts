/**
 * `npm run train -- --resume DIR` takes only a checkpoint that can be the run's last saved state:
 * model.json and weights.bin of one save, finite values, and metrics.jsonl with a line for every
 * step up to the checkpoint's (the lines past it, written after the last save, are dropped).
 */
import * as tf from '@tensorflow/tfjs-core';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRunToResume, ResumeError } from '../src/cli/resumeRun';
import { GPT } from '../src/core/model/gpt';
import { Trainer } from '../src/core/rl/trainer';
import { loadCheckpointDir, saveCheckpointDir, saveCheckpointDirAtomically } from '../src/node/checkpointFiles';
import { randomModel, useWasmBackend } from './modelHelpers';
import { printsOne, TINY_MODEL, tinyTrainerConfig } from './tinyTrainer';

const root = mkdtempSync(join(tmpdir(), 'resume-run-'));
const base = join(root, 'base');
const config = tinyTrainerConfig({ seed: 9, steps: 4 });

/** A run dir whose checkpoint is at step 2, with its step-1 checkpoint kept aside in `${dir}/step1`, and the lines of steps 0..lines-1. */
async function runDir(name: string, lines: number): Promise<string> {
  const dir = join(root, name);
  const start = await loadCheckpointDir(base);
  const trainer = new Trainer(start.model, config, printsOne, { reference: start.model });
  for (const [step, at] of [[1, join(dir, 'step1')], [2, join(dir, 'checkpoint')]] as const) {
    await trainer.trainStep();
    const state = { ...(await trainer.saveState()), config, reference: { fingerprint: start.fingerprint, source: base } };
    saveCheckpointDirAtomically(at, start.model, { kind: 'rl', preset: 'tiny', config, step, base: { path: base } }, state);
  }
  trainer.dispose();
  start.model.dispose();
  const numbered = (n: number) => Array.from({ length: n }, (_, step) => `${JSON.stringify({ step, accuracy: step / 10 })}\n`).join('');
  writeFileSync(join(dir, 'metrics.jsonl'), numbered(lines));
  writeFileSync(join(dir, 'samples.jsonl'), numbered(lines).split('\n').slice(1).join('\n'));
  return dir;
}

function refusal(dir: string): Promise<string> {
  return openRunToResume(dir, 4).then(
    (run) => {
      run.model.dispose();
      run.reference.dispose();
      return 'resumed';
    },
    (error: unknown) => (error instanceof ResumeError ? error.message : `not a ResumeError: ${String(error)}`),
  );
}

beforeAll(async () => {
  await useWasmBackend();
  const model = randomModel(TINY_MODEL, 9);
  await saveCheckpointDir(base, model, { kind: 'base' });
  model.dispose();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('resuming a run', () => {
  it('keeps the lines up to the checkpoint step and drops those written after it', async () => {
    const dir = await runDir('ahead', 5);
    const tensors = tf.memory().numTensors;
    const run = await openRunToResume(dir, 4);
    expect(run.step).toBe(2);
    expect(run.history.map((m) => m.step)).toEqual([0, 1, 2]);
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toBe('{"step":0,"accuracy":0}\n{"step":1,"accuracy":0.1}\n{"step":2,"accuracy":0.2}\n');
    expect(readFileSync(join(dir, 'samples.jsonl'), 'utf8')).toBe('{"step":1,"accuracy":0.1}\n{"step":2,"accuracy":0.2}\n');
    run.model.dispose();
    run.reference.dispose();
    expect(tf.memory().numTensors).toBe(tensors);
  });

  it('refuses metrics.jsonl that stops before the checkpoint step, or holds a line that is not a step', async () => {
    const dir = await runDir('behind', 2);
    const tensors = tf.memory().numTensors;
    expect(await refusal(dir)).toBe(`${join(dir, 'metrics.jsonl')} has no line for step 2, though ${join(dir, 'checkpoint')} is at step 2: the two are not of one run`);
    writeFileSync(join(dir, 'metrics.jsonl'), '{"step":0}\n{"step":1\n{"step":2}\n');
    expect(await refusal(dir)).toBe(`${join(dir, 'metrics.jsonl')} line 2 is not a step's JSON line`);
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toBe('{"step":0}\n{"step":1\n{"step":2}\n');
    expect(tf.memory().numTensors).toBe(tensors);
  });

  it('drops a last line cut short past the checkpoint step (a power cut, a full disk) with the other lines past it', async () => {
    const dir = await runDir('cut-tail', 4);
    const metrics = join(dir, 'metrics.jsonl');
    const samples = join(dir, 'samples.jsonl');
    writeFileSync(metrics, `${readFileSync(metrics, 'utf8')}{"step":4,"accuracy":0.1`);
    // Its start too short to give the step: the line before is already past the checkpoint's.
    writeFileSync(samples, `${readFileSync(samples, 'utf8')}{"st`);
    const run = await openRunToResume(dir, 4);
    expect(run.history.map((m) => m.step)).toEqual([0, 1, 2]);
    expect(readFileSync(metrics, 'utf8')).toBe('{"step":0,"accuracy":0}\n{"step":1,"accuracy":0.1}\n{"step":2,"accuracy":0.2}\n');
    expect(readFileSync(samples, 'utf8')).toBe('{"step":1,"accuracy":0.1}\n{"step":2,"accuracy":0.2}\n');
    run.model.dispose();
    run.reference.dispose();
  });

  it('refuses a cut line that may be of a step up to the checkpoint, or one with lines after it, leaving the files as they were', async () => {
    const dir = await runDir('cut-early', 3);
    const metrics = join(dir, 'metrics.jsonl');
    const whole = readFileSync(metrics, 'utf8');
    for (const [text, line] of [
      [`${whole}{"step":2,"accuracy":0.2`, 4],
      [`${whole}{"st`, 4],
      [`${whole}{"step":3,"accu\n{"step":4}\n`, 4],
    ] as const) {
      writeFileSync(metrics, text);
      expect(await refusal(dir)).toBe(`${metrics} line ${line} is not a step's JSON line`);
      expect(readFileSync(metrics, 'utf8')).toBe(text);
    }
  });

  it('refuses a cut summary.json in one line before it rewrites any file of the run', async () => {
    const dir = await runDir('cut-summary', 5);
    const summary = join(dir, 'summary.json');
    writeFileSync(summary, '{"preset":"tiny","wallSeconds":12.');
    const before = readFileSync(join(dir, 'metrics.jsonl'), 'utf8');
    const message = await refusal(dir);
    expect(message.startsWith(`${summary} is not JSON (`)).toBe(true);
    expect(message.endsWith("): it holds the run's wall time so far; remove it to resume without that")).toBe(true);
    expect(message).not.toContain('\n');
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toBe(before);
    writeFileSync(summary, '{"preset":"tiny","wallSeconds":12.5}');
    const run = await openRunToResume(dir, 4);
    expect(run.wallSecondsBefore).toBe(12.5);
    run.model.dispose();
    run.reference.dispose();
  });

  it("refuses step 1's weights.bin beside step 2's model.json, with the reason", async () => {
    const dir = await runDir('mixed', 3);
    copyFileSync(join(dir, 'step1', 'weights.bin'), join(dir, 'checkpoint', 'weights.bin'));
    const checkpoint = join(dir, 'checkpoint');
    expect(await refusal(dir)).toBe(
      `${join(checkpoint, 'weights.bin')} is not the weights ${join(checkpoint, 'model.json')} was saved with (its SHA-256 differs from the recorded one): the two files come from different saves`,
    );
  });

  it('refuses NaN weights, naming the tensor', async () => {
    const dir = await runDir('diverged', 3);
    const saved = await loadCheckpointDir(join(dir, 'checkpoint'));
    const weights = Object.fromEntries(saved.model.namedWeights().map(({ name, tensor }) => [name, new Float32Array(tensor.dataSync())]));
    weights.wte.fill(NaN, 0, 5);
    const nan = GPT.fromWeights(saved.model.config, weights);
    saveCheckpointDirAtomically(join(dir, 'checkpoint'), nan, saved.meta, { ...saved.trainer!, config, reference: saved.trainer!.reference });
    for (const m of [nan, saved.model]) m.dispose();
    expect(await refusal(dir)).toBe(`${join(dir, 'checkpoint')}: weight "wte" has 5 values that are NaN or infinite: the run it was saved from diverged`);
  });
});
