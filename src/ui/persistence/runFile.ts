/**
 * A run as one file that travels: export it on one machine, import it on another, and it comes
 * back with its curves and continues training where it stopped (docs/run-file.md).
 *
 * Format "tir-lab-run", formatVersion 2: one JSON object
 *   format, formatVersion  "tir-lab-run", 2
 *   name, preset, config, seed, startFrom, metrics, samples, summary, evaluation, passAtOne
 *                          as runExport.ts writes them (what `npm run compare` reads)
 *   checkpoint             { step, manifest, weightsBase64 }: the run's whole state (weights, Adam,
 *                          random streams, step, config, KL-reference fingerprint), or null when
 *                          the run has none yet
 * Version 1 is the metrics export of earlier labs (no formatVersion, no checkpoint): it imports
 * with its curves, and Train starts it again from step 0.
 *
 * Plain JSON, not gzip: the bulk is float32 weights and moments, which barely compress.
 * Everything is checked before anything changes; a file that is not one, is cut, is from a newer
 * lab, or holds NaN weights is refused with an Error saying what is wrong.
 */
import { configErrors, withSavedConfigDefaults, type ExperimentConfig } from '../../core/experiment';
import type { StepMetrics } from '../../core/metrics/stepMetrics';
import type { RolloutSample } from '../../core/rl/rolloutSample';
import type { CheckpointBlob } from '../../labWorker/checkpointBlob';
import type { PassAtOneResult } from '../state/labRun';
import { isStartFrom, startForFormat, startFormatError, type StartFrom } from '../state/startFrom';
import { base64ToBytes, bytesToBase64, checkCheckpoint } from './checkpointFile';
import { RUN_EXPORT_FORMAT, runExport, type ExportableRun } from './runExport';

export const RUN_FILE_VERSION = 2;

export interface RunFileCheckpoint {
  step: number;
  blob: CheckpointBlob;
}

/** What an imported run file holds, checked. */
export interface ImportedRun {
  formatVersion: number;
  name: string;
  preset: string;
  config: ExperimentConfig;
  startFrom: StartFrom;
  metrics: StepMetrics[];
  samples: RolloutSample[];
  evaluation: Record<number, number> | null;
  passAtOne: PassAtOneResult | null;
  checkpoint: RunFileCheckpoint | null;
}

export function encodeRunFile(run: ExportableRun, checkpoint: RunFileCheckpoint | null): string {
  const { format, ...rest } = runExport(run);
  return JSON.stringify({
    format,
    formatVersion: RUN_FILE_VERSION,
    ...rest,
    checkpoint: checkpoint && { step: checkpoint.step, manifest: checkpoint.blob.manifest, weightsBase64: bytesToBase64(checkpoint.blob.weights) },
  });
}

/** Whether a parsed JSON value says it is a run file (of any version). */
export function isRunFile(value: unknown): boolean {
  return isObject(value) && value.format === RUN_EXPORT_FORMAT;
}

/** Reads a run file's text; throws an Error with a message for people when it is not one this lab reads. */
export function decodeRunFile(text: string): ImportedRun {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('the file is not valid JSON (cut short or not a run file)');
  }
  if (!isObject(parsed) || parsed.format !== RUN_EXPORT_FORMAT) {
    throw new Error(`not a TIR Lab run file: format is ${JSON.stringify(isObject(parsed) ? parsed.format : undefined)}, expected "${RUN_EXPORT_FORMAT}"`);
  }
  const version = parsed.formatVersion ?? 1;
  if (version !== 1 && version !== RUN_FILE_VERSION) {
    const newer = typeof version === 'number' && version > RUN_FILE_VERSION;
    throw new Error(
      newer
        ? `the run file is version ${version}, from a newer TIR Lab; this lab reads versions 1 and ${RUN_FILE_VERSION}`
        : `unknown run file version ${JSON.stringify(version)}; this lab reads versions 1 and ${RUN_FILE_VERSION}`,
    );
  }
  if (typeof parsed.name !== 'string' || parsed.name.trim() === '') throw new Error('the run file has no run name');
  if (typeof parsed.preset !== 'string') throw new Error('the run file has no preset');
  if (!isObject(parsed.config)) throw new Error('the run file has no config');
  const config = withSavedConfigDefaults(parsed.config as unknown as ExperimentConfig);
  const errors = Object.values(configErrors(config));
  if (errors.length > 0) throw new Error(`the run's config in the file is invalid: ${errors.join('; ')}`);
  const startFrom = parsed.startFrom === undefined ? startForFormat(config.format) : parsed.startFrom;
  if (!isStartFrom(startFrom)) throw new Error(`the run file's start model ${JSON.stringify(startFrom)} is not one this lab has`);
  const startError = startFormatError(startFrom, config.format);
  if (startError) throw new Error(`the run file does not fit together: ${startError}`);
  const metrics = checkMetrics(parsed.metrics);
  const samples = checkSamples(parsed.samples);
  const checkpoint = version === 1 ? null : checkRunCheckpoint(parsed.checkpoint, metrics);
  return {
    formatVersion: version,
    name: parsed.name,
    preset: parsed.preset,
    config,
    startFrom,
    metrics,
    samples,
    evaluation: isObject(parsed.evaluation) ? (parsed.evaluation as Record<number, number>) : null,
    passAtOne: isObject(parsed.passAtOne) ? (parsed.passAtOne as unknown as PassAtOneResult) : null,
    checkpoint,
  };
}

function checkMetrics(value: unknown): StepMetrics[] {
  if (!Array.isArray(value)) throw new Error('the run file has no metrics list');
  let previous = -1;
  for (const [i, entry] of value.entries()) {
    if (!isObject(entry) || !isStepNumber(entry.step)) throw new Error(`the run file's metrics entry ${i} has no valid step`);
    if (entry.step <= previous) throw new Error(`the run file's metrics are out of order at step ${entry.step}`);
    previous = entry.step;
  }
  return value as StepMetrics[];
}

function checkSamples(value: unknown): RolloutSample[] {
  if (!Array.isArray(value)) throw new Error('the run file has no samples list');
  for (const [i, sample] of value.entries()) {
    const valid =
      isObject(sample) &&
      isStepNumber(sample.step) &&
      typeof sample.prompt === 'string' &&
      typeof sample.response === 'string' &&
      Array.isArray(sample.segments) &&
      Array.isArray(sample.calls);
    if (!valid) throw new Error(`the run file's sample ${i} is malformed`);
  }
  return value as RolloutSample[];
}

function checkRunCheckpoint(value: unknown, metrics: StepMetrics[]): RunFileCheckpoint | null {
  if (value === null) return null;
  if (!isObject(value) || !isStepNumber(value.step) || typeof value.weightsBase64 !== 'string') {
    throw new Error('the run file has a malformed checkpoint (it needs step, manifest and weightsBase64)');
  }
  const weights = base64ToBytes(value.weightsBase64);
  checkCheckpoint(value.manifest, weights);
  const lastStep = metrics.length > 0 ? metrics[metrics.length - 1].step : 0;
  if (value.step > lastStep) throw new Error(`the run file's checkpoint is at step ${value.step}, but its metrics stop at step ${lastStep}`);
  return { step: value.step, blob: { manifest: value.manifest, weights } };
}

function isStepNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
