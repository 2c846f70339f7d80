/**
 * Checkpoints: a GPT's config and weights as a JSON manifest plus one binary buffer.
 *
 * Format "tir-lab-checkpoint", formatVersion 1:
 *   manifest (JSON object):
 *     format           "tir-lab-checkpoint"
 *     formatVersion    1
 *     tokenizerVersion TOKENIZER_VERSION of src/core/tokenizer.ts when saved; token ids mean
 *                      characters of that version only, so another version is refused
 *     config           GPTConfig (vocabSize, contextLength, nLayer, nHead, nEmbd, mlpRatio)
 *     weights          [{ name, shape, offset, length }], one per weight of weightSpecs(config) (written
 *                      in that order); offset and length in bytes into the weights buffer, length =
 *                      4 * product(shape), each entry starting where the previous ended (the first at 0)
 *     meta             free JSON object (run config, seed, step, corpus recipe...)
 *   weights (binary): float32 little-endian values, row-major per weight, concatenated in manifest
 *                     order; its byte length is the sum of the lengths.
 * A file that breaks any of this is refused with an Error that says what is wrong.
 */
import { TOKENIZER_VERSION } from '../tokenizer';
import { GPTConfig, validateGPTConfig } from './config';
import { GPT, weightSpecs } from './gpt';

export const CHECKPOINT_FORMAT = 'tir-lab-checkpoint';
export const CHECKPOINT_FORMAT_VERSION = 1;

export interface CheckpointWeightEntry {
  name: string;
  shape: number[];
  offset: number;
  length: number;
}

export interface CheckpointManifest {
  format: typeof CHECKPOINT_FORMAT;
  formatVersion: typeof CHECKPOINT_FORMAT_VERSION;
  tokenizerVersion: number;
  config: GPTConfig;
  weights: CheckpointWeightEntry[];
  meta: Record<string, unknown>;
}

const BYTES_PER_FLOAT = 4;

/** The model's weights (read back from the backend) and a manifest describing them. */
export function serializeCheckpoint(
  model: GPT,
  meta: Record<string, unknown>,
): { manifest: CheckpointManifest; weights: Uint8Array } {
  const named = model.namedWeights();
  const entries: CheckpointWeightEntry[] = [];
  let offset = 0;
  for (const { name, tensor } of named) {
    const length = tensor.size * BYTES_PER_FLOAT;
    entries.push({ name, shape: [...tensor.shape], offset, length });
    offset += length;
  }
  const weights = new Uint8Array(offset);
  const view = new DataView(weights.buffer);
  named.forEach(({ tensor }, i) => {
    const values = tensor.dataSync();
    for (let j = 0; j < values.length; j++) view.setFloat32(entries[i].offset + j * BYTES_PER_FLOAT, values[j], true);
  });
  const manifest: CheckpointManifest = {
    format: CHECKPOINT_FORMAT,
    formatVersion: CHECKPOINT_FORMAT_VERSION,
    tokenizerVersion: TOKENIZER_VERSION,
    config: { ...model.config },
    weights: entries,
    meta,
  };
  return { manifest, weights };
}

/** A model and its meta from a manifest (parsed JSON, untrusted) and its weights buffer. */
export function deserializeCheckpoint(
  manifest: unknown,
  weights: Uint8Array,
): { model: GPT; meta: Record<string, unknown> } {
  if (!isObject(manifest)) throw new Error('checkpoint manifest is not a JSON object');
  if (manifest.format !== CHECKPOINT_FORMAT) {
    throw new Error(`not a TIR Lab checkpoint: format is ${JSON.stringify(manifest.format)}, expected "${CHECKPOINT_FORMAT}"`);
  }
  if (manifest.formatVersion !== CHECKPOINT_FORMAT_VERSION) {
    throw new Error(
      `unknown checkpoint formatVersion ${JSON.stringify(manifest.formatVersion)}; this build reads version ${CHECKPOINT_FORMAT_VERSION}`,
    );
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
  const values = readWeights(manifest.weights, weights, config);
  return { model: GPT.fromWeights(config, values), meta };
}

function readWeights(entries: unknown[], buffer: Uint8Array, config: GPTConfig): Record<string, Float32Array> {
  const specs = weightSpecs(config);
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const values: Record<string, Float32Array> = {};
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let expectedOffset = 0;
  for (const entry of entries) {
    if (!isObject(entry) || typeof entry.name !== 'string') throw new Error('checkpoint weight entry has no name');
    const { name } = entry;
    const spec = byName.get(name);
    if (spec === undefined) throw new Error(`checkpoint has an extra weight "${name}" that this config does not use`);
    if (name in values) throw new Error(`checkpoint lists weight "${name}" twice`);
    if (!Array.isArray(entry.shape) || entry.shape.join(',') !== spec.shape.join(',')) {
      throw new Error(`checkpoint weight "${name}" has shape ${JSON.stringify(entry.shape)}, expected [${spec.shape}]`);
    }
    const count = spec.shape.reduce((a, b) => a * b, 1);
    if (entry.length !== count * BYTES_PER_FLOAT) {
      throw new Error(`checkpoint weight "${name}" has length ${JSON.stringify(entry.length)} bytes, expected ${count * BYTES_PER_FLOAT}`);
    }
    if (entry.offset !== expectedOffset) {
      throw new Error(`checkpoint weight "${name}" starts at byte ${JSON.stringify(entry.offset)}, expected ${expectedOffset}`);
    }
    if (expectedOffset + count * BYTES_PER_FLOAT > buffer.byteLength) {
      throw new Error(`checkpoint weights buffer has ${buffer.byteLength} bytes, too short for weight "${name}"`);
    }
    const array = new Float32Array(count);
    for (let j = 0; j < count; j++) array[j] = view.getFloat32(expectedOffset + j * BYTES_PER_FLOAT, true);
    values[name] = array;
    expectedOffset += count * BYTES_PER_FLOAT;
  }
  const missing = specs.filter((spec) => !(spec.name in values)).map((spec) => spec.name);
  if (missing.length > 0) throw new Error(`checkpoint is missing weights: ${missing.join(', ')}`);
  if (buffer.byteLength !== expectedOffset) {
    throw new Error(`checkpoint weights buffer has ${buffer.byteLength} bytes, the manifest describes ${expectedOffset}`);
  }
  return values;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
