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
 * lab, holds NaN weights, or holds any field of a wrong type or size (runChecks.ts) is refused with
 * an Error saying what is wrong.
 */
import type { ExperimentConfig } from '../experiment';
import type { StepMetrics } from '../metrics/stepMetrics';
import type { RolloutSample } from '../rollout/rolloutSample';
import type { CheckpointBlob } from '../run/checkpointBlob';
import type { PassAtOneResult } from '../eval/evalReport';
import { isStartFrom, startForFormat, startFormatError, type StartFrom } from './startFrom';
import { base64ToBytes, bytesToBase64, checkCheckpoint } from './checkpointFile';
import { checkConfig, checkEvaluation, checkMetricsList, checkPassAtOne, checkRunName, checkSamples, RUN_LIMITS, RunDataError, text } from './runChecks';
import { isObject } from '../jsonValue';
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

/**
 * The largest file the import reads: a run at the largest step budget with every figure is about
 * 100 MB. Checked before the text is parsed, so a huge file is refused at once.
 */
export const MAX_RUN_FILE_CHARS = 256 * 1024 * 1024;

/**
 * Reads a run file's text; throws an Error with a message for people when it is not one this lab
 * reads. Every field the lab draws is checked, with its size bounded (runChecks.ts), before
 * anything is stored.
 */
export function decodeRunFile(text: string): ImportedRun {
  if (text.length > MAX_RUN_FILE_CHARS) throw new Error(`the file is ${megabytes(text.length)}, larger than a run file can be (${megabytes(MAX_RUN_FILE_CHARS)})`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('the file is not valid JSON (cut short or not a run file)');
  }
  if (!isObject(parsed) || parsed.format !== RUN_EXPORT_FORMAT) {
    const format = isObject(parsed) && typeof parsed.format === 'string' ? parsed.format.slice(0, RUN_LIMITS.name) : isObject(parsed) ? parsed.format : undefined;
    throw new Error(`not a TIR Lab run file: format is ${JSON.stringify(format)}, expected "${RUN_EXPORT_FORMAT}"`);
  }
  const version = parsed.formatVersion ?? 1;
  if (version !== 1 && version !== RUN_FILE_VERSION) {
    const newer = typeof version === 'number' && version > RUN_FILE_VERSION;
    throw new Error(
      newer
        ? `the run file is version ${version}, from a newer TIR Lab; this lab reads versions 1 and ${RUN_FILE_VERSION}`
        : `unknown run file version ${JSON.stringify(typeof version === 'string' ? version.slice(0, RUN_LIMITS.name) : version)}; this lab reads versions 1 and ${RUN_FILE_VERSION}`,
    );
  }
  try {
    return decodeFields(parsed, version);
  } catch (error) {
    if (error instanceof RunDataError) throw new Error(`the run file's ${error.message}`);
    throw error;
  }
}

function decodeFields(parsed: Record<string, unknown>, version: number): ImportedRun {
  if (parsed.name === undefined) throw new Error('the run file has no run name');
  const name = checkRunName(parsed.name, 'name');
  const preset = text(parsed.preset, 'preset', RUN_LIMITS.name);
  const config = checkConfig(parsed.config, 'config');
  const startFrom = parsed.startFrom === undefined ? startForFormat(config.format) : parsed.startFrom;
  if (!isStartFrom(startFrom)) throw new Error(`the run file's start model ${JSON.stringify(typeof startFrom === 'string' ? startFrom.slice(0, RUN_LIMITS.name) : startFrom)} is not one this lab has`);
  const startError = startFormatError(startFrom, config.format);
  if (startError) throw new Error(`the run file does not fit together: ${startError}`);
  const metrics = checkMetricsList(parsed.metrics, 'metrics');
  const samples = checkSamples(parsed.samples, 'samples');
  const evaluation = checkEvaluation(parsed.evaluation, 'evaluation');
  const passAtOne = checkPassAtOne(parsed.passAtOne, 'passAtOne');
  const checkpoint = version === 1 ? null : checkRunCheckpoint(parsed.checkpoint, metrics);
  return { formatVersion: version, name, preset, config, startFrom, metrics, samples, evaluation, passAtOne, checkpoint };
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

function megabytes(chars: number): string {
  return `${Math.ceil(chars / (1024 * 1024))} MB`;
}
