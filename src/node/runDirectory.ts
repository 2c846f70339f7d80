/**
 * A run directory of `npm run train` and the lab's run file are one run in two layouts: the
 * directory keeps metrics.jsonl, samples.jsonl and checkpoint/ (model.json + weights.bin), the file
 * keeps the same figures, the newest samples and the checkpoint in one JSON object
 * (core/archive/runFile.ts). `packRunDirectory` writes the file the lab's Import takes;
 * `unpackRunFile` writes a directory that `npm run train -- --resume DIR` continues. Both pass the
 * run file's own checks (decodeRunFile), so what one side writes the other reads.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { SAMPLES_KEPT } from '../core/archive/runChecks';
import { isObject } from '../core/jsonValue';
import { decodeRunFile, encodeRunFile, type ImportedRun } from '../core/archive/runFile';
import { startForFormat } from '../core/archive/startFrom';
import { withSavedConfigDefaults, type ExperimentConfig } from '../core/experiment';
import type { StepMetrics } from '../core/metrics/stepMetrics';
import type { RolloutSample } from '../core/rollout/rolloutSample';
import { readCheckpointBlob, writeCheckpointBlobDir } from './checkpointFiles';

/** What a run directory holds; any of them in a directory means a run is there. */
const RUN_FILES = ['metrics.jsonl', 'samples.jsonl', 'summary.json', 'checkpoint'];

/** A run directory or run file that cannot be turned into the other; the message says why. */
export class RunDirectoryError extends Error {}

/** The run files already in `dir` (none when it is absent). */
export function runFilesIn(dir: string): string[] {
  return RUN_FILES.filter((name) => existsSync(join(dir, name)));
}

/**
 * The run in `dir` as a run file's text: its config and preset from the checkpoint, its metrics
 * up to the checkpoint's step (as a resume keeps them), its newest samples first, and the
 * checkpoint with the whole run state. Named `name`, else after the directory.
 */
export async function packRunDirectory(dir: string, name: string = basename(resolve(dir))): Promise<string> {
  if (!existsSync(join(dir, 'checkpoint', 'model.json'))) throw new RunDirectoryError(`${dir} is not a run directory of npm run train: it has no checkpoint/model.json`);
  const blob = await readCheckpointBlob(join(dir, 'checkpoint'));
  const { config, step, preset } = savedRun(blob.manifest as SavedCheckpoint, join(dir, 'checkpoint'));
  const metrics = stepLinesUpTo(join(dir, 'metrics.jsonl'), step).values as StepMetrics[];
  const samples = (stepLinesUpTo(join(dir, 'samples.jsonl'), step).values as RolloutSample[]).reverse().slice(0, SAMPLES_KEPT);
  const text = encodeRunFile(
    { name, preset, config, metrics, samples, evaluation: null, startFrom: startForFormat(config.format), passAtOne: null },
    { step, blob },
  );
  checked(text, `the run in ${dir}`);
  return text;
}

/** A checkpoint's meta and trainer state, as its manifest or loadCheckpointDir gives them. */
type SavedCheckpoint = { meta?: Record<string, unknown>; trainer?: { step?: unknown; config?: unknown } | null };

/**
 * The run a checkpoint in `checkpointDir` was saved from: its config (the trainer state's, else the
 * meta's, with the defaults of knobs added since), step and preset; refused unless it is an RL run's.
 */
export function savedRun(checkpoint: SavedCheckpoint, checkpointDir: string): { config: ExperimentConfig; step: number; preset: string } {
  const meta = checkpoint.meta ?? {};
  const step = checkpoint.trainer?.step ?? meta.step;
  const config: unknown = withSavedConfigDefaults(checkpoint.trainer?.config ?? meta.config);
  if (meta.kind !== 'rl' || typeof step !== 'number' || typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new RunDirectoryError(`${checkpointDir} is not an RL run's checkpoint (its meta has no kind "rl", config and step)`);
  }
  return { config: config as ExperimentConfig, step, preset: typeof meta.preset === 'string' ? meta.preset : 'unknown' };
}

/**
 * Writes the run file `text` as the run directory `dir`, new or empty: the metrics and samples up
 * to its checkpoint's step, oldest first, and the checkpoint, the preset recorded in its meta for
 * the summary. Written beside it and renamed into place, so a kill leaves no half run to resume.
 * Returns the run as read.
 */
export async function unpackRunFile(text: string, dir: string): Promise<ImportedRun> {
  const run = checked(text, 'the run file');
  const { checkpoint } = run;
  if (!checkpoint) throw new RunDirectoryError('the run file holds no checkpoint (a run not trained yet, or a metrics export of an earlier lab): there is nothing to continue');
  const taken = runFilesIn(dir);
  if (taken.length > 0) throw new RunDirectoryError(`${dir} already holds a run (${taken.join(', ')}): unpack into another directory`);
  const { manifest, weights } = checkpoint.blob;
  const saved = manifest as { meta?: Record<string, unknown> };
  const meta = { ...saved.meta, preset: typeof saved.meta?.preset === 'string' ? saved.meta.preset : run.preset };
  const staging = `${dir}.unpacking`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await writeCheckpointBlobDir(join(staging, 'checkpoint'), { manifest: { ...saved, meta }, weights });
  const upTo = <T extends { step: number }>(rows: T[]) => rows.filter((row) => row.step <= checkpoint.step);
  await writeFile(join(staging, 'metrics.jsonl'), jsonLinesText(upTo(run.metrics)));
  await writeFile(join(staging, 'samples.jsonl'), jsonLinesText(upTo([...run.samples].reverse())));
  try {
    await rename(staging, dir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') throw new RunDirectoryError(`${dir} is not an empty directory: unpack into a new one`);
    throw error;
  }
  return run;
}

/** The run file read by the lab's own importer, its refusal said as a RunDirectoryError. */
function checked(text: string, what: string): ImportedRun {
  try {
    return decodeRunFile(text);
  } catch (error) {
    throw new RunDirectoryError(`${what} is not one the lab reads: ${(error as Error).message}`);
  }
}

/**
 * The lines of a run directory's metrics.jsonl or samples.jsonl (none when it is absent) with a
 * step up to `step` (a checkpoint's), each with its parsed value; a line that is not JSON with a
 * step is refused. But for the last line when it is cut short (no newline after it: a power cut or
 * a full disk during the append) and of a step past `step`: it is dropped with the other lines past
 * the checkpoint, whose steps a resume runs again. Its step is at least the number its start gives
 * (a cut `{"step":4` is of step 4, 40 or more) and at least the step of the line before (the lines
 * are appended in step order).
 */
export function stepLinesUpTo(path: string, step: number): { lines: string[]; values: { step: number }[] } {
  const lines: string[] = [];
  const values: { step: number }[] = [];
  if (!existsSync(path)) return { lines, values };
  const text = readFileSync(path, 'utf8');
  const rows = text.split('\n');
  let lastStep = -1;
  rows.forEach((line, i) => {
    if (line.trim() === '') return;
    const value = stepValue(line);
    if (value === null) {
      const cut = i === rows.length - 1 && !text.endsWith('\n');
      const begun = /^\{"step":(\d+)/.exec(line);
      if (cut && Math.max(lastStep, begun ? Number(begun[1]) : -1) > step) return;
      throw new RunDirectoryError(`${path} line ${i + 1} is not a step's JSON line`);
    }
    lastStep = value.step;
    if (value.step > step) return;
    lines.push(line);
    values.push(value);
  });
  return { lines, values };
}

/** The line's JSON if it is an object with a numeric step, else null. */
function stepValue(line: string): { step: number } | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  return isObject(value) && typeof value.step === 'number' ? (value as { step: number }) : null;
}

function jsonLinesText(rows: object[]): string {
  return rows.map((row) => `${JSON.stringify(row)}\n`).join('');
}
