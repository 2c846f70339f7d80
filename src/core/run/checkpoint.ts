/**
 * Checkpoints: a GPT's config and weights as a JSON manifest plus one binary buffer, and for a run
 * its whole trainer state, so that a resumed run continues exactly.
 *
 * Format "tir-lab-checkpoint", formatVersion 1 (weights only: base models, cold starts, runs saved
 * before version 2) or 2 (a run's checkpoint: version 1 plus the trainer section):
 *   manifest (JSON object):
 *     format           "tir-lab-checkpoint"
 *     formatVersion    1 or 2
 *     tokenizerVersion TOKENIZER_VERSION of src/core/tokenizer.ts when saved; token ids mean
 *                      characters of that version only, so another version is refused
 *     config           GPTConfig (vocabSize, contextLength, nLayer, nHead, nEmbd, mlpRatio)
 *     weights          [{ name, shape, offset, length }], one per weight of weightSpecs(config) (written
 *                      in that order); offset and length in bytes into the buffer, length =
 *                      4 * product(shape), each entry starting where the previous ended (the first at 0)
 *     meta             free JSON object (run config, seed, step, corpus recipe...)
 *     trainer          version 2 only (src/core/run/trainerState.ts): { step, config, random:
 *                      { problems, samples, shuffle }, reference: { fingerprint, source },
 *                      optimizer: { iterations, accBeta1, accBeta2, moments } }, where moments lists
 *                      Adam's first then second moments ("<weight>/m", "<weight>/v", in weight order;
 *                      empty before the first update) as entries like the weights', continuing in the
 *                      buffer after them
 *   buffer (binary, `weights` where it travels): float32 little-endian values, row-major per entry,
 *                     concatenated in manifest order; its byte length is the sum of the lengths.
 * A file that breaks any of this is refused with an Error that says what is wrong.
 */
import { GPTConfig, validateGPTConfig } from '../model/config';
import { GPT, weightSpecs, type WeightSpec } from '../model/gpt';
import { TOKENIZER_VERSION } from '../tokenizer';
import { checkTrainerStateJson, type TrainerState, type TrainerStateJson } from './trainerState';
import { isObject } from '../jsonValue';

export const CHECKPOINT_FORMAT = 'tir-lab-checkpoint';
/** The version of a weights-only checkpoint; one with a trainer section is version 2. */
export const CHECKPOINT_FORMAT_VERSION = 1;
export const RUN_CHECKPOINT_FORMAT_VERSION = 2;

export interface CheckpointWeightEntry {
  name: string;
  shape: number[];
  offset: number;
  length: number;
}

export interface CheckpointManifest {
  format: typeof CHECKPOINT_FORMAT;
  formatVersion: typeof CHECKPOINT_FORMAT_VERSION | typeof RUN_CHECKPOINT_FORMAT_VERSION;
  tokenizerVersion: number;
  config: GPTConfig;
  weights: CheckpointWeightEntry[];
  meta: Record<string, unknown>;
  trainer?: TrainerStateJson & { optimizer: { moments: CheckpointWeightEntry[] } };
}

/** What a checkpoint holds: the model, its meta, the trainer state when it is a run's (else null), and the weights' fingerprint. */
export interface LoadedCheckpoint {
  model: GPT;
  meta: Record<string, unknown>;
  trainer: TrainerState | null;
  fingerprint: string;
}

const BYTES_PER_FLOAT = 4;

/** The model's weights (read back from the backend) and a manifest describing them; with `trainer`, a run's checkpoint. */
export function serializeCheckpoint(
  model: GPT,
  meta: Record<string, unknown>,
  trainer?: TrainerState,
): { manifest: CheckpointManifest; weights: Uint8Array } {
  const named = model.namedWeights();
  const arrays: { name: string; shape: number[]; values: ArrayLike<number> }[] = named.map(({ name, tensor }) => ({
    name,
    shape: [...tensor.shape],
    values: tensor.dataSync(),
  }));
  const weightCount = arrays.length;
  if (trainer) {
    const { firstMoments, secondMoments } = trainer.optimizer;
    firstMoments.forEach((values, i) => arrays.push({ name: `${named[i].name}/m`, shape: arrays[i].shape, values }));
    secondMoments.forEach((values, i) => arrays.push({ name: `${named[i].name}/v`, shape: arrays[i].shape, values }));
  }
  const entries: CheckpointWeightEntry[] = [];
  let offset = 0;
  for (const { name, shape, values } of arrays) {
    const length = values.length * BYTES_PER_FLOAT;
    entries.push({ name, shape, offset, length });
    offset += length;
  }
  const weights = new Uint8Array(offset);
  const view = new DataView(weights.buffer);
  arrays.forEach(({ values }, i) => {
    for (let j = 0; j < values.length; j++) view.setFloat32(entries[i].offset + j * BYTES_PER_FLOAT, values[j], true);
  });
  const manifest: CheckpointManifest = {
    format: CHECKPOINT_FORMAT,
    formatVersion: trainer ? RUN_CHECKPOINT_FORMAT_VERSION : CHECKPOINT_FORMAT_VERSION,
    tokenizerVersion: TOKENIZER_VERSION,
    config: { ...model.config },
    weights: entries.slice(0, weightCount),
    meta,
  };
  if (trainer) {
    const { firstMoments: _m, secondMoments: _v, ...optimizer } = trainer.optimizer;
    manifest.trainer = {
      step: trainer.step,
      config: { ...trainer.config },
      random: { ...trainer.random },
      reference: { ...trainer.reference },
      optimizer: { ...optimizer, moments: entries.slice(weightCount) },
    };
  }
  return { manifest, weights };
}

/**
 * A fingerprint of a checkpoint's weights (their float32 bytes): two 32-bit FNV-1a hashes with
 * different offsets, as 16 hex digits. It names a start model, so a resumed run can check that its
 * KL reference is the model the run started from.
 */
export function weightsFingerprint(bytes: Uint8Array): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ bytes.length;
  for (let i = 0; i < bytes.length; i++) {
    a = Math.imul(a ^ bytes[i], 0x01000193);
    b = Math.imul(b ^ bytes[i], 0x01000193) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** A model, its meta and its trainer state from a manifest (parsed JSON, untrusted) and its buffer. */
export function deserializeCheckpoint(manifest: unknown, weights: Uint8Array): LoadedCheckpoint {
  if (!isObject(manifest)) throw new Error('checkpoint manifest is not a JSON object');
  if (manifest.format !== CHECKPOINT_FORMAT) {
    throw new Error(`not a TIR Lab checkpoint: format is ${JSON.stringify(manifest.format)}, expected "${CHECKPOINT_FORMAT}"`);
  }
  const version = manifest.formatVersion;
  if (version !== CHECKPOINT_FORMAT_VERSION && version !== RUN_CHECKPOINT_FORMAT_VERSION) {
    throw new Error(
      `unknown checkpoint formatVersion ${JSON.stringify(version)}; this build reads versions ${CHECKPOINT_FORMAT_VERSION} and ${RUN_CHECKPOINT_FORMAT_VERSION}`,
    );
  }
  if ((version === RUN_CHECKPOINT_FORMAT_VERSION) !== (manifest.trainer !== undefined)) {
    throw new Error(`a version ${version} checkpoint ${version === CHECKPOINT_FORMAT_VERSION ? 'has no' : 'needs a'} trainer section`);
  }
  if (manifest.tokenizerVersion !== TOKENIZER_VERSION) {
    throw new Error(
      `checkpoint was made with tokenizerVersion ${JSON.stringify(manifest.tokenizerVersion)}, this build has ${TOKENIZER_VERSION}: its token ids would mean other characters`,
    );
  }
  let config: GPTConfig;
  try {
    config = validateGPTConfig(manifest.config);
  } catch (error) {
    throw new Error(`checkpoint has an invalid config: ${(error as Error).message}`);
  }
  const meta = manifest.meta ?? {};
  if (!isObject(meta)) throw new Error('checkpoint meta must be a JSON object');
  if (!Array.isArray(manifest.weights)) throw new Error('checkpoint manifest has no weights list');
  const specs = weightSpecs(config);
  const read = readEntries(manifest.weights, weights, specs, 0, 'weight');
  const trainer = manifest.trainer === undefined ? null : readTrainerState(manifest.trainer, weights, specs, read.end);
  const end = trainer ? trainer.end : read.end;
  if (weights.byteLength !== end) {
    throw new Error(`checkpoint weights buffer has ${weights.byteLength} bytes, the manifest describes ${end}`);
  }
  return {
    model: GPT.fromWeights(config, read.values),
    meta,
    trainer: trainer?.state ?? null,
    fingerprint: weightsFingerprint(weights.subarray(0, read.end)),
  };
}

/** The trainer section and its moments, which follow the weights in the buffer from byte `start`. */
function readTrainerState(section: unknown, buffer: Uint8Array, specs: WeightSpec[], start: number): { state: TrainerState; end: number } {
  let json: TrainerStateJson;
  try {
    json = checkTrainerStateJson(section);
  } catch (error) {
    throw new Error(`checkpoint ${(error as Error).message}`);
  }
  const moments = (section as { optimizer: { moments?: unknown } }).optimizer.moments;
  if (!Array.isArray(moments)) throw new Error('checkpoint trainer state has no moments list');
  const momentSpecs = moments.length === 0 ? [] : (['m', 'v'] as const).flatMap((kind) => specs.map((spec) => ({ ...spec, name: `${spec.name}/${kind}` })));
  const read = readEntries(moments, buffer, momentSpecs, start, 'optimizer moment');
  const inOrder = momentSpecs.map((spec) => read.values[spec.name]);
  const half = inOrder.length / 2;
  const state: TrainerState = {
    ...json,
    optimizer: { ...json.optimizer, firstMoments: inOrder.slice(0, half), secondMoments: inOrder.slice(half) },
  };
  return { state, end: read.end };
}

/**
 * Float32 arrays for the manifest entries `entries`, one per spec (any order in the list, but each
 * starting where the previous ended, the first at byte `start`); throws on a missing, extra,
 * repeated, misshapen or misplaced entry. `end` is the byte after the last.
 */
function readEntries(
  entries: unknown[],
  buffer: Uint8Array,
  specs: WeightSpec[],
  start: number,
  kind: string,
): { values: Record<string, Float32Array>; end: number } {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const values: Record<string, Float32Array> = {};
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let expectedOffset = start;
  for (const entry of entries) {
    if (!isObject(entry) || typeof entry.name !== 'string') throw new Error(`checkpoint ${kind} entry has no name`);
    const { name } = entry;
    const spec = byName.get(name);
    if (spec === undefined) throw new Error(`checkpoint has an extra ${kind} "${name}" that this config does not use`);
    if (name in values) throw new Error(`checkpoint lists ${kind} "${name}" twice`);
    if (!Array.isArray(entry.shape) || entry.shape.join(',') !== spec.shape.join(',')) {
      throw new Error(`checkpoint ${kind} "${name}" has shape ${JSON.stringify(entry.shape)}, expected [${spec.shape}]`);
    }
    const count = spec.shape.reduce((a, b) => a * b, 1);
    if (entry.length !== count * BYTES_PER_FLOAT) {
      throw new Error(`checkpoint ${kind} "${name}" has length ${JSON.stringify(entry.length)} bytes, expected ${count * BYTES_PER_FLOAT}`);
    }
    if (entry.offset !== expectedOffset) {
      throw new Error(`checkpoint ${kind} "${name}" starts at byte ${JSON.stringify(entry.offset)}, expected ${expectedOffset}`);
    }
    if (expectedOffset + count * BYTES_PER_FLOAT > buffer.byteLength) {
      throw new Error(`checkpoint weights buffer has ${buffer.byteLength} bytes, too short for ${kind} "${name}"`);
    }
    const array = new Float32Array(count);
    for (let j = 0; j < count; j++) array[j] = view.getFloat32(expectedOffset + j * BYTES_PER_FLOAT, true);
    values[name] = array;
    expectedOffset += count * BYTES_PER_FLOAT;
  }
  const missing = specs.filter((spec) => !(spec.name in values)).map((spec) => spec.name);
  if (missing.length > 0) throw new Error(`checkpoint is missing ${kind}s: ${missing.join(', ')}`);
  return { values, end: expectedOffset };
}
