/**
 * A run travels between the lab and the command line as the lab's run file: a run the lab's worker
 * trained, exported as the lab exports it and unpacked, continues on the command line's resume
 * exactly as the lab would have continued it; a run directory of the command line, packed, opens
 * in the lab's worker and continues there exactly as `--resume` continues it. `npm run runfile`
 * says what is wrong with its input in one line (exit 2).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRunToResume, ResumeError } from '../src/cli/resumeRun';
import { decodeRunFile, encodeRunFile } from '../src/core/archive/runFile';
import type { StepMetrics } from '../src/core/metrics/stepMetrics';
import { openRun } from '../src/core/rl/openRun';
import type { RolloutSample } from '../src/core/rollout/rolloutSample';
import { loadCheckpointDir, readCheckpointBlob, saveCheckpointDir, writeCheckpointBlobDir } from '../src/node/checkpointFiles';
import { packRunDirectory, RunDirectoryError, unpackRunFile } from '../src/node/runDirectory';
import { LabSession } from '../src/trainerWorker/labSession';
import type { LabEvent } from '../src/trainerWorker/protocol';
import { randomModel, useWasmBackend } from './modelHelpers';
import { printsOne, TINY_MODEL, tinyTrainerConfig } from './tinyTrainer';

const root = mkdtempSync(join(tmpdir(), 'run-directory-'));
const base = join(root, 'base');
// The lab's session tests the start model on the held-out set at step 0: its prompts need a longer context than TINY_MODEL's.
const MODEL = { ...TINY_MODEL, contextLength: 160 };
// A KL term, so the continued steps use the start model as reference and the wrong one would show.
const config = tinyTrainerConfig({ seed: 5, steps: 4, samplesPerStep: 2, klCoef: 0.05 });

/** The figures a continued step must reproduce exactly (timings excluded). */
function figures(m: StepMetrics) {
  const { seconds: _s, tokensPerSecond: _t, ...rest } = m;
  return rest;
}

/** A lab worker's session on the start model in `base`, with its step events. */
async function labSession(): Promise<{ session: LabSession; steps: { metrics: StepMetrics; samples: RolloutSample[] }[] }> {
  const start = await loadCheckpointDir(base);
  const steps: { metrics: StepMetrics; samples: RolloutSample[] }[] = [];
  const emit = (event: LabEvent) => {
    if (event.type === 'step') steps.push({ metrics: event.metrics, samples: event.samples });
  };
  const session = new LabSession({ base: start.model, baseMeta: start.meta, baseFingerprint: start.fingerprint, sandbox: printsOne, emit, pretrainShape: { model: MODEL, batchSize: 2, rowLength: 32 } });
  return { session, steps };
}

/** One more step of the run resumed from `dir` by the command line's own path (openRunToResume, openRun). */
async function cliStep(dir: string, startModel?: string): Promise<StepMetrics> {
  const resumed = await openRunToResume(dir, config.steps, startModel);
  const { trainer } = openRun(resumed.config, printsOne, { model: resumed.model, step: resumed.step, saved: resumed.saved }, [{ model: resumed.reference, identity: resumed.referenceIdentity }]);
  resumed.reference.dispose();
  const record = await trainer.trainStep();
  trainer.dispose();
  resumed.model.dispose();
  return record.metrics;
}

beforeAll(async () => {
  await useWasmBackend();
  const model = randomModel(MODEL, 9);
  await saveCheckpointDir(base, model, { kind: 'base' });
  model.dispose();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a run between the lab and the command line', () => {
  it("continues a lab run's exported file on the command line as the lab continues it", async () => {
    const { session, steps } = await labSession();
    await session.startRun('lab-run', config);
    await session.step();
    await session.step();
    // As the lab's Export run button writes it (runTransfer.ts): the rows, the samples newest first, the checkpoint now.
    const samples = steps.flatMap((s) => s.samples).reverse();
    const text = encodeRunFile({ name: 'lab run', preset: 'tiny', config, metrics: steps.map((s) => s.metrics), samples, evaluation: null }, { step: 2, blob: await session.saveCheckpoint() });
    await session.step();
    const labStep3 = steps.at(-1)!.metrics;
    await session.dispose();

    const dir = join(root, 'from-lab');
    const run = await unpackRunFile(text, dir);
    expect(run.checkpoint?.step).toBe(2);
    const lines = (file: string) => readFileSync(join(dir, file), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines('metrics.jsonl')).toEqual(JSON.parse(JSON.stringify(steps.slice(0, 3).map((s) => s.metrics))));
    expect(lines('samples.jsonl').map((s) => s.step)).toEqual([1, 1, 2, 2]);

    // The lab names its start model "base model", not a directory: found by fingerprint at --base.
    const lost = await openRunToResume(dir, 4).then(() => 'resumed', (error: unknown) => (error instanceof ResumeError ? error.message : String(error)));
    expect(lost).toMatch(/^the run's start model \(its KL reference\) is not at "base model" nor among the shipped start models \(public\/models\/base, public\/models\/coldstart\): pass --base DIR/);
    expect(figures(await cliStep(dir, base))).toEqual(figures(labStep3));
    await expect(unpackRunFile(text, dir)).rejects.toThrow(`${dir} already holds a run (metrics.jsonl, samples.jsonl, checkpoint): unpack into another directory`);
  }, 60_000);

  it('opens a command-line run, packed, in the lab, which continues it as --resume does', async () => {
    const { session, steps } = await labSession();
    await session.startRun('cli-run', config);
    await session.step();
    await session.step();
    // A run directory as npm run train leaves it: checkpoint at step 2, its lines, one written after it.
    const dir = join(root, 'from-cli');
    const { manifest, weights } = await session.saveCheckpoint();
    const saved = manifest as { meta: Record<string, unknown>; trainer: { reference: Record<string, unknown> } };
    const cliManifest = { ...saved, meta: { ...saved.meta, preset: 'tiny' }, trainer: { ...saved.trainer, reference: { ...saved.trainer.reference, source: base } } };
    await writeCheckpointBlobDir(join(dir, 'checkpoint'), { manifest: cliManifest, weights });
    await session.step();
    writeFileSync(join(dir, 'metrics.jsonl'), steps.map((s) => `${JSON.stringify(s.metrics)}\n`).join(''));
    writeFileSync(join(dir, 'samples.jsonl'), steps.flatMap((s) => s.samples.map((sample) => `${JSON.stringify(sample)}\n`)).join(''));
    const cliStep3 = figures(await cliStep(dir));

    const packed = decodeRunFile(await packRunDirectory(dir, 'cli run'));
    expect(packed).toMatchObject({ name: 'cli run', preset: 'tiny', config, startFrom: 'base', evaluation: null });
    expect(packed.metrics.map((m) => m.step)).toEqual([0, 1, 2]);
    expect(packed.samples.map((s) => s.step)).toEqual([2, 2, 1, 1]);
    expect(Buffer.from(packed.checkpoint!.blob.weights).equals(Buffer.from(weights))).toBe(true);
    expect(packed.checkpoint!.blob.manifest).not.toHaveProperty('weightsSha256');

    // The lab's worker continues the imported run from its checkpoint, as loadForContinue does.
    steps.length = 0;
    await session.startRun('imported', packed.config, { checkpoint: packed.checkpoint!.blob, step: packed.checkpoint!.step });
    await session.step();
    expect(figures(steps.at(-1)!.metrics)).toEqual(cliStep3);
    await session.dispose();
  }, 60_000);

  it('refuses what is not a run, in one line', async () => {
    await expect(packRunDirectory(join(root, 'nowhere'))).rejects.toThrow(`${join(root, 'nowhere')} is not a run directory of npm run train: it has no checkpoint/model.json`);
    const notRl = join(root, 'not-rl');
    const blob = await readCheckpointBlob(base);
    expect(blob.manifest).not.toHaveProperty('weightsSha256');
    await writeCheckpointBlobDir(join(notRl, 'checkpoint'), blob);
    await expect(packRunDirectory(notRl)).rejects.toThrow(`${join(notRl, 'checkpoint')} is not an RL run's checkpoint (its meta has no kind "rl", config and step)`);
    await expect(unpackRunFile('{"format":"tir-lab-run"', join(root, 'cut'))).rejects.toThrow('the run file is not one the lab reads: the file is not valid JSON (cut short or not a run file)');
    // Into a directory with other files in it: refused, and nothing left beside it.
    const occupied = join(root, 'occupied');
    mkdirSync(occupied);
    writeFileSync(join(occupied, 'notes.txt'), 'mine');
    const { session } = await labSession();
    await session.startRun('r', config);
    const good = encodeRunFile({ name: 'r', preset: 'tiny', config, metrics: [], samples: [], evaluation: null }, { step: 0, blob: await session.saveCheckpoint() });
    await session.dispose();
    await expect(unpackRunFile(good, occupied)).rejects.toThrow(`${occupied} is not an empty directory: unpack into a new one`);
    expect(readdirSync(root).filter((name) => name.startsWith('occupied'))).toEqual(['occupied']);
    expect(readdirSync(occupied)).toEqual(['notes.txt']);
    const empty = join(root, 'empty');
    mkdirSync(empty);
    await unpackRunFile(good, empty);
    expect(readdirSync(empty).sort()).toEqual(['checkpoint', 'metrics.jsonl', 'samples.jsonl']);
    const untrained = encodeRunFile({ name: 'new', preset: 'tiny', config, metrics: [], samples: [], evaluation: null }, null);
    await expect(unpackRunFile(untrained, join(root, 'untrained'))).rejects.toThrow(RunDirectoryError);
    await expect(unpackRunFile(untrained, join(root, 'untrained'))).rejects.toThrow('the run file holds no checkpoint');
  });
});

describe('npm run runfile', () => {
  const runFile = (args: string[]) =>
    promisify(execFile)(join('node_modules', '.bin', 'tsx'), ['src/cli/runFile.ts', ...args]).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );

  it('says what is wrong in one line, exit 2: the words, a missing --out, not a run, not a file', async () => {
    const noWord = await runFile([]);
    expect(noWord.code).toBe(2);
    expect(noWord.stderr).toContain('runfile: the first word must be pack or unpack, got ""');
    expect(noWord.stderr).toContain('usage: npm run runfile -- pack DIR');
    const noOut = await runFile(['unpack', 'run.json']);
    expect([noOut.code, noOut.stderr.split('\n')[0]]).toEqual([2, 'runfile: unpack needs --out DIR, the run directory to write']);
    const notRun = await runFile(['pack', join(root, 'nowhere')]);
    expect([notRun.code, notRun.stderr.trim()]).toEqual([2, `runfile: ${join(root, 'nowhere')} is not a run directory of npm run train: it has no checkpoint/model.json`]);
    const noFile = await runFile(['unpack', join(root, 'none.json'), '--out', join(root, 'x')]);
    expect([noFile.code, noFile.stderr.trim()]).toEqual([2, `runfile: there is no file ${join(root, 'none.json')}`]);
  }, 60_000);
});
