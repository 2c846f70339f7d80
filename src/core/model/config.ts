/**
 * The shape of a GPT, as plain data: checkpoints store it, the lab shows it, presets name it.
 */
import { VOCAB_SIZE } from '../tokenizer';

export interface GPTConfig {
  vocabSize: number;
  /** Longest sequence the model sees (prompt + response + tool outputs); also the KV cache size. */
  contextLength: number;
  nLayer: number;
  nHead: number;
  nEmbd: number;
  /** Width of the MLP hidden layer as a multiple of nEmbd. */
  mlpRatio: number;
}

/** The shipped base model: ~160k parameters, context long enough for a five-call chain and a failed call (issue 22). */
export const BASE_MODEL_CONFIG: GPTConfig = {
  vocabSize: VOCAB_SIZE,
  contextLength: 512,
  nLayer: 3,
  nHead: 4,
  nEmbd: 64,
  mlpRatio: 4,
};

const FIELDS = ['vocabSize', 'contextLength', 'nLayer', 'nHead', 'nEmbd', 'mlpRatio'] as const;

/** Checks an untrusted value (a checkpoint's JSON, a URL) and returns a clean GPTConfig; throws saying what is wrong. */
export function validateGPTConfig(c: unknown): GPTConfig {
  if (typeof c !== 'object' || c === null || Array.isArray(c)) {
    throw new Error(`GPT config must be an object, got ${c === null ? 'null' : Array.isArray(c) ? 'an array' : typeof c}`);
  }
  const record = c as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(FIELDS as readonly string[]).includes(key)) throw new Error(`GPT config has an unknown field "${key}"`);
  }
  const numbers = {} as Record<(typeof FIELDS)[number], number>;
  for (const field of FIELDS) {
    const value = record[field];
    if (value === undefined) throw new Error(`GPT config is missing "${field}"`);
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      const shown = typeof value === 'number' ? String(value) : JSON.stringify(value);
      throw new Error(`GPT config "${field}" must be a positive number, got ${shown}`);
    }
    if (field !== 'mlpRatio' && !Number.isInteger(value)) {
      throw new Error(`GPT config "${field}" must be an integer, got ${value}`);
    }
    numbers[field] = value;
  }
  if (numbers.nEmbd % numbers.nHead !== 0) {
    throw new Error(`GPT config nEmbd (${numbers.nEmbd}) must be divisible by nHead (${numbers.nHead})`);
  }
  if (!Number.isInteger(numbers.nEmbd * numbers.mlpRatio)) {
    throw new Error(`GPT config nEmbd * mlpRatio (${numbers.nEmbd} * ${numbers.mlpRatio}) must be an integer`);
  }
  return { ...numbers };
}
