/**
 * Checkpoints as files people can keep and bring back.
 *
 * Format "tir-lab-checkpoint-file", formatVersion 1: one JSON object
 *   format         "tir-lab-checkpoint-file"
 *   formatVersion  1
 *   manifest       the checkpoint manifest (src/core/run/checkpoint.ts: format "tir-lab-checkpoint")
 *   weightsBase64  the float32 weights buffer, base64
 *   run            { name, preset, config, step } of the run it came from, or null
 * The CLI's checkpoint directory (model.json + weights.bin) is accepted too, as a pair of files.
 *
 * Everything is checked before anything changes: a corrupt or foreign file, or weights that are
 * not all finite numbers, is refused with an Error saying what is wrong. The worker checks the weights against the model config again.
 */
import { configErrors, withSavedConfigDefaults, type ExperimentConfig } from '../experiment';
import { TOKENIZER_VERSION } from '../tokenizer';
import type { CheckpointBlob } from '../run/checkpointBlob';
import { isObject } from '../jsonValue';
import { RUN_LIMITS } from './runChecks';

export const CHECKPOINT_FILE_FORMAT = 'tir-lab-checkpoint-file';
export const CHECKPOINT_FILE_VERSION = 1;
// The manifest's own tag and versions (1: weights only, 2: a run's, with the trainer state);
// checkpoint.ts is not imported because it pulls in tfjs.
const MANIFEST_FORMAT = 'tir-lab-checkpoint';
const MANIFEST_VERSIONS = [1, 2];

export interface CheckpointRunInfo {
  name: string;
  preset: string;
  config: ExperimentConfig;
  step: number;
}

export interface ImportedCheckpoint {
  blob: CheckpointBlob;
  run: CheckpointRunInfo | null;
  /** The step the weights were saved at (run.step, else the manifest's meta.step, else 0). */
  step: number;
}

export function encodeCheckpointFile(blob: CheckpointBlob, run: CheckpointRunInfo | null): string {
  return JSON.stringify({
    format: CHECKPOINT_FILE_FORMAT,
    formatVersion: CHECKPOINT_FILE_VERSION,
    run,
    manifest: blob.manifest,
    weightsBase64: bytesToBase64(blob.weights),
  });
}

/** Reads a checkpoint file's text; throws an Error with a message for people when it is not one. */
export function decodeCheckpointFile(text: string): ImportedCheckpoint {
  const parsed = parseJson(text, 'the file');
  if (!isObject(parsed)) throw new Error('not a TIR Lab checkpoint: the file is not a JSON object');
  if (parsed.format !== CHECKPOINT_FILE_FORMAT) {
    if (parsed.format === MANIFEST_FORMAT) {
      throw new Error('this is a model.json manifest alone: choose it together with its weights.bin');
    }
    if (parsed.format === 'tir-lab-run') throw new Error('this is a run export (metrics), not a checkpoint');
    throw new Error(`not a TIR Lab checkpoint: format is ${JSON.stringify(parsed.format)}, expected "${CHECKPOINT_FILE_FORMAT}"`);
  }
  if (parsed.formatVersion !== CHECKPOINT_FILE_VERSION) {
    throw new Error(`unknown checkpoint file version ${JSON.stringify(parsed.formatVersion)}; this lab reads version ${CHECKPOINT_FILE_VERSION}`);
  }
  if (typeof parsed.weightsBase64 !== 'string') throw new Error('the checkpoint file has no weights');
  const weights = base64ToBytes(parsed.weightsBase64);
  checkCheckpoint(parsed.manifest, weights);
  const run = parsed.run === null || parsed.run === undefined ? null : checkRunInfo(parsed.run);
  return { blob: { manifest: parsed.manifest, weights }, run, step: run?.step ?? metaStep(parsed.manifest) ?? 0 };
}

/** The CLI's pair: model.json text and weights.bin bytes. */
export function decodeCheckpointPair(manifestText: string, weights: Uint8Array): ImportedCheckpoint {
  const manifest = parseJson(manifestText, 'model.json');
  checkCheckpoint(manifest, weights);
  return { blob: { manifest, weights }, run: null, step: metaStep(manifest) ?? 0 };
}

export interface ImportFile {
  name: string;
  bytes: Uint8Array;
}

/** What the import button was given: one checkpoint file, or the CLI's model.json + weights.bin. */
export function decodeCheckpointFiles(files: ImportFile[]): ImportedCheckpoint {
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  if (files.length === 1) return decodeCheckpointFile(text(files[0].bytes));
  const manifest = files.find((f) => f.name.endsWith('.json'));
  const weights = files.find((f) => f.name.endsWith('.bin'));
  if (files.length !== 2 || !manifest || !weights) {
    throw new Error('choose one checkpoint .json file, or a model.json with its weights.bin');
  }
  return decodeCheckpointPair(text(manifest.bytes), weights.bytes);
}

/** The step a checkpoint says it was saved at (manifest meta.step), if it says. */
export function metaStep(manifest: unknown): number | null {
  if (!isObject(manifest) || !isObject(manifest.meta)) return null;
  const step = manifest.meta.step;
  return typeof step === 'number' && Number.isInteger(step) && step >= 0 ? step : null;
}

/** Throws an Error for people unless the manifest describes these weights and every value is finite (run files reuse it). */
export function checkCheckpoint(manifest: unknown, weights: Uint8Array): void {
  if (!isObject(manifest)) throw new Error('the checkpoint manifest is not a JSON object');
  if (manifest.format !== MANIFEST_FORMAT) {
    throw new Error(`not a TIR Lab checkpoint: manifest format is ${JSON.stringify(manifest.format)}, expected "${MANIFEST_FORMAT}"`);
  }
  if (!MANIFEST_VERSIONS.includes(manifest.formatVersion as number)) {
    throw new Error(`unknown checkpoint formatVersion ${JSON.stringify(manifest.formatVersion)}; this lab reads versions ${MANIFEST_VERSIONS.join(' and ')}`);
  }
  if (manifest.tokenizerVersion !== TOKENIZER_VERSION) {
    throw new Error(
      `the checkpoint was made with tokenizer version ${JSON.stringify(manifest.tokenizerVersion)}, this lab has ${TOKENIZER_VERSION}: its token ids would mean other characters`,
    );
  }
  if (!Array.isArray(manifest.weights) || manifest.weights.length === 0) throw new Error('the checkpoint manifest lists no weights');
  // A run's checkpoint keeps Adam's moments in the same buffer, after the weights.
  const trainer = manifest.trainer;
  const moments = isObject(trainer) && isObject(trainer.optimizer) && Array.isArray(trainer.optimizer.moments) ? trainer.optimizer.moments : [];
  let offset = 0;
  for (const entry of [...manifest.weights, ...moments]) {
    if (!isObject(entry) || typeof entry.name !== 'string') throw new Error('a checkpoint weight entry has no name');
    const shape = entry.shape;
    if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d > 0)) {
      throw new Error(`checkpoint weight "${entry.name}" has no valid shape`);
    }
    const bytes = 4 * shape.reduce((a: number, b: number) => a * b, 1);
    if (entry.offset !== offset || entry.length !== bytes) {
      throw new Error(`checkpoint weight "${entry.name}" does not fit the weights buffer (offset ${entry.offset}, length ${entry.length})`);
    }
    offset += bytes;
  }
  if (weights.byteLength !== offset) {
    throw new Error(`the weights hold ${weights.byteLength} bytes, the manifest describes ${offset}: the file is cut or does not belong to this manifest`);
  }
  checkFinite([...manifest.weights, ...moments] as { name: string; offset: number; length: number }[], weights);
}

/**
 * A run that diverged saves NaN or infinite weights; loaded, every answer it samples would be
 * garbage and every update NaN, with nothing on screen saying why. Refused here, naming the tensor.
 */
function checkFinite(entries: { name: string; offset: number; length: number }[], weights: Uint8Array): void {
  const bad = nonFiniteEntry(entries, weights);
  if (bad !== null) {
    throw new Error(
      `checkpoint weight "${bad.name}" has ${bad.count === 1 ? '1 value that is' : `${bad.count} values that are`} NaN or infinite: the run it was saved from diverged, so it cannot be trained or sampled`,
    );
  }
}

/** The first entry of the float32 buffer holding a NaN or an infinity, with how many; null when all are finite (the CLI's checkpoint loader asks it too). */
export function nonFiniteEntry(entries: { name: string; offset: number; length: number }[], bytes: Uint8Array): { name: string; count: number } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const { name, offset, length } of entries) {
    let count = 0;
    for (let at = offset; at < offset + length; at += 4) if (!Number.isFinite(view.getFloat32(at, true))) count++;
    if (count > 0) return { name, count };
  }
  return null;
}

function checkRunInfo(run: unknown): CheckpointRunInfo {
  if (!isObject(run) || typeof run.name !== 'string' || typeof run.preset !== 'string' || !isObject(run.config)) {
    throw new Error('the checkpoint file has a malformed run description');
  }
  if (typeof run.step !== 'number' || !Number.isInteger(run.step) || run.step < 0) throw new Error('the checkpoint file has no valid step');
  if (run.name.length > RUN_LIMITS.name || run.preset.length > RUN_LIMITS.name) throw new Error(`the checkpoint file's run name or preset is longer than ${RUN_LIMITS.name} characters`);
  const config = withSavedConfigDefaults(run.config as unknown as ExperimentConfig);
  const errors = Object.values(configErrors(config));
  if (errors.length > 0) throw new Error(`the run config in the file is invalid: ${errors.join('; ')}`);
  return { name: run.name, preset: run.preset, config, step: run.step };
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${what} is not valid JSON, so it is not a TIR Lab checkpoint`);
  }
}

export function bytesToBase64(bytes: Uint8Array): string {
  const chunk = 0x8000; // String.fromCharCode takes the bytes as arguments: keep the argument list short.
  let binary = '';
  for (let i = 0; i < bytes.length; i += chunk) binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  return btoa(binary);
}

export function base64ToBytes(text: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    throw new Error('the checkpoint weights are not valid base64');
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
