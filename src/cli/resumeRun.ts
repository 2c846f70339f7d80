/**
 * `npm run train -- --resume DIR`: what a stopped run left in DIR, ready to continue. Its
 * checkpoint gives the weights and the trainer state; its start model, loaded again from where the
 * run took it and checked against the fingerprint the run recorded, is the KL reference; its
 * metrics.jsonl and samples.jsonl are kept up to the checkpoint's step (a line written after the
 * checkpoint would be repeated) and then appended to. A checkpoint that cannot be the run's last
 * saved state (its files from two saves, NaN weights, metrics that stop before its step) is refused,
 * and so is a run whose files cannot all be read, before any of them is rewritten.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isObject } from '../core/jsonValue';
import { START_FROM_CHOICES, START_MODELS } from '../core/archive/startFrom';
import { configErrors, type ExperimentConfig } from '../core/experiment';
import type { GPT } from '../core/model/gpt';
import type { StepMetrics } from '../core/metrics/stepMetrics';
import type { RunPoint } from '../core/rl/openRun';
import type { ReferenceIdentity } from '../core/run/trainerState';
import type { LoadedCheckpoint } from '../core/run/checkpoint';
import { CheckpointError, finishCheckpointSwap, loadCheckpointDir } from '../node/checkpointFiles';
import { RunDirectoryError, savedRun, stepLinesUpTo } from '../node/runDirectory';
import { DEFAULT_BASE_CHECKPOINT } from './cliArgs';

export interface ResumedRun {
  /** The run's config, with `steps` raised to the new budget when one was given. */
  config: ExperimentConfig;
  preset: string;
  model: GPT;
  /** The run's start model, its KL reference. */
  reference: GPT;
  referenceIdentity: ReferenceIdentity;
  /** The saved trainer state and the start model it names; null for a weights-only checkpoint (saved before run state was kept). */
  saved: RunPoint['saved'];
  step: number;
  base: { path: string; meta: unknown };
  /** The metrics up to the checkpoint's step, step 0 first. */
  history: StepMetrics[];
  wallSecondsBefore: number;
}

/** A refusal to resume, said as is (exit 2). */
export class ResumeError extends Error {}

/**
 * `base`: where the run's start model is when not where the run recorded it (a run from the lab,
 * which names it "base model"); its fingerprint is checked all the same.
 */
export async function openRunToResume(dir: string, steps: number | undefined, base?: string): Promise<ResumedRun> {
  const checkpointDir = join(dir, 'checkpoint');
  await finishCheckpointSwap(checkpointDir);
  for (const file of [join(checkpointDir, 'model.json'), join(dir, 'metrics.jsonl')]) {
    if (!existsSync(file)) throw new ResumeError(`${dir} is not a run directory of npm run train: it has no ${file}`);
  }
  const saved = await loadOrRefuse(checkpointDir);
  const meta = saved.meta;
  const baseRecord = isObject(meta.base) ? meta.base : {};
  try {
    const trainer = saved.trainer;
    const { config: savedConfig, step, preset } = refusedAsResume(() => savedRun(saved, checkpointDir));
    const target = steps ?? savedConfig.steps;
    if (target <= step) {
      throw new ResumeError(
        steps === undefined
          ? `the run in ${dir} has done its ${step} steps; pass --steps N with N above ${step} to continue it`
          : `--steps ${steps} is not above the run's saved step ${step}`,
      );
    }
    const config: ExperimentConfig = { ...savedConfig, tierMix: { ...savedConfig.tierMix }, steps: target };
    const errors = Object.entries(configErrors(config));
    if (errors.length > 0) throw new ResumeError(errors.map(([key, message]) => `${key}: ${message}`).join('; '));

    const metricsPath = join(dir, 'metrics.jsonl');
    const samplesPath = join(dir, 'samples.jsonl');
    const metrics = linesUpTo(metricsPath, step);
    const samples = linesUpTo(samplesPath, step);
    const gap = metrics.kept.findIndex((m, i) => m.step !== i);
    // No line at all at step 0 is a run stopped before its step-0 test was recorded; that test runs again.
    if (gap >= 0 || (metrics.kept.length !== step + 1 && !(step === 0 && metrics.kept.length === 0))) {
      const missing = gap >= 0 ? gap : metrics.kept.length;
      throw new ResumeError(`${metricsPath} has no line for step ${missing}, though ${checkpointDir} is at step ${step}: the two are not of one run`);
    }
    const wallSecondsBefore = previousWallSeconds(dir);

    const recorded = trainer?.reference.source ?? baseRecord.path;
    const { basePath, start } = await startModel(base ?? recorded, base === undefined, trainer?.reference.fingerprint);
    writeLines(metrics);
    writeLines(samples);
    const history = metrics.kept as unknown as StepMetrics[];
    return {
      config,
      preset,
      model: saved.model,
      reference: start.model,
      referenceIdentity: { fingerprint: start.fingerprint, source: basePath },
      saved: trainer,
      step,
      base: { path: basePath, meta: baseRecord.meta ?? start.meta },
      history,
      wallSecondsBefore,
    };
  } catch (error) {
    saved.model.dispose();
    throw error;
  }
}

/**
 * The run's start model: at `path`, or, when `path` is only the run's record of it and no
 * directory there holds that model, the shipped start model (public/models/base, coldstart) with
 * the fingerprint the run recorded. A start model other than the run's is refused: against another
 * KL reference the run would not continue as it was.
 */
async function startModel(path: unknown, recordedOnly: boolean, fingerprint: string | undefined): Promise<{ basePath: string; start: LoadedCheckpoint }> {
  let other: ResumeError | null = null;
  if (typeof path === 'string' && existsSync(join(path, 'model.json'))) {
    const start = await loadOrRefuse(path);
    if (fingerprint === undefined || start.fingerprint === fingerprint) return { basePath: path, start };
    start.model.dispose();
    other = new ResumeError(
      `the start model at ${path} is not the one the run began from (fingerprint ${start.fingerprint}, the run recorded ${fingerprint}): against another KL reference it would not continue the run`,
    );
  }
  if (recordedOnly && fingerprint !== undefined) {
    for (const shipped of SHIPPED_START_MODELS.filter((dir) => dir !== path && existsSync(join(dir, 'model.json')))) {
      const start = await loadOrRefuse(shipped);
      if (start.fingerprint === fingerprint) return { basePath: shipped, start };
      start.model.dispose();
    }
  }
  if (other) throw other;
  const shipped = recordedOnly && fingerprint !== undefined ? ` nor among the shipped start models (${SHIPPED_START_MODELS.join(', ')}): pass --base DIR to say where it is` : '';
  throw new ResumeError(`the run's start model (its KL reference) is not at ${JSON.stringify(path)}${shipped}`);
}

/** The start models shipped beside the base model, where a run from the lab began. */
const SHIPPED_START_MODELS = START_FROM_CHOICES.map((start) => join(dirname(DEFAULT_BASE_CHECKPOINT), START_MODELS[start].folder));

/** A checkpoint directory, or a ResumeError saying why it cannot be loaded. */
async function loadOrRefuse(dir: string) {
  try {
    return await loadCheckpointDir(dir);
  } catch (error) {
    if (error instanceof CheckpointError) throw new ResumeError(error.message);
    throw error;
  }
}

/** The JSON lines of `path` (none when it is absent) with a step up to `step`, as stepLinesUpTo reads them. */
function linesUpTo(path: string, step: number): { path: string; lines: string[]; kept: Record<string, unknown>[] } {
  const read = refusedAsResume(() => stepLinesUpTo(path, step));
  return { path, lines: read.lines, kept: read.values as Record<string, unknown>[] };
}

/** What `read` gives, its RunDirectoryError said as a ResumeError. */
function refusedAsResume<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw error instanceof RunDirectoryError ? new ResumeError(error.message) : error;
  }
}

/**
 * Writes back the lines kept, as they were: those past the checkpoint's step would be repeated by
 * the steps redone. Through a temporary file, so a kill while writing leaves the file whole.
 */
function writeLines({ path, lines }: { path: string; lines: string[] }): void {
  writeFileSync(`${path}.tmp`, lines.map((line) => `${line}\n`).join(''));
  renameSync(`${path}.tmp`, path);
}

/**
 * The wall time of the sessions before, from summary.json (0 without one, or without the figure).
 * A summary that is not JSON is refused rather than counted as 0: that would drop those sessions'
 * time without a word.
 */
function previousWallSeconds(dir: string): number {
  const path = join(dir, 'summary.json');
  if (!existsSync(path)) return 0;
  let summary: unknown;
  try {
    summary = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ResumeError(`${path} is not JSON (${(error as Error).message}): it holds the run's wall time so far; remove it to resume without that`);
  }
  const wall = isObject(summary) ? summary.wallSeconds : undefined;
  return typeof wall === 'number' && Number.isFinite(wall) ? wall : 0;
}

