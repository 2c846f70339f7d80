/**
 * Shared by the model, checkpoint and RL-loss tests: the wasm backend with gradients (and a tensor
 * leak check), and models with large random weights (the GPT-2 init is so small that logits barely
 * depend on the input, which would let a wrong attention or position bias pass a numerical
 * comparison).
 */
import * as tf from '@tensorflow/tfjs-core';
// tfjs-core alone registers no gradients; the tfjs union package normally does this import
import '@tensorflow/tfjs-core/dist/register_all_gradients';
import '@tensorflow/tfjs-backend-wasm';
import { afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { GPTConfig } from '../src/core/model/config';
import { GPT, weightSpecs } from '../src/core/model/gpt';
import { Random } from '../src/core/random';

export async function useWasmBackend(): Promise<void> {
  await tf.setBackend('wasm');
  await tf.ready();
}

/** For a whole test file: the wasm backend, and every test must leave as many tensors as it found. */
export function useWasmCheckingTensors(): void {
  let tensorsBefore = 0;
  beforeAll(useWasmBackend);
  beforeEach(() => {
    tensorsBefore = tf.memory().numTensors;
  });
  afterEach(() => {
    expect(tf.memory().numTensors).toBe(tensorsBefore);
  });
}

export const TINY_CONFIG: GPTConfig = { vocabSize: 7, contextLength: 8, nLayer: 1, nHead: 2, nEmbd: 4, mlpRatio: 2 };

/** Every weight N(0, std), LayerNorm gains 1 + N(0, std), seeded. */
export function randomWeights(config: GPTConfig, seed: number, std: number): Record<string, Float32Array> {
  const rng = new Random(seed);
  const weights: Record<string, Float32Array> = {};
  for (const spec of weightSpecs(config)) {
    const values = new Float32Array(spec.shape.reduce((a, b) => a * b, 1));
    const offset = spec.name.endsWith('gamma') ? 1 : 0;
    for (let i = 0; i < values.length; i++) values[i] = offset + std * rng.normal();
    weights[spec.name] = values;
  }
  return weights;
}

export function randomModel(config: GPTConfig, seed: number, std = 0.2): GPT {
  return GPT.fromWeights(config, randomWeights(config, seed, std));
}

export function randomTokens(batch: number, length: number, vocabSize: number, seed: number): Int32Array {
  const rng = new Random(seed);
  return Int32Array.from({ length: batch * length }, () => rng.int(0, vocabSize - 1));
}

/** Runs `f`, disposes what it returns and checks that it left no tensor behind. */
export function tensorsLeftBy(f: () => tf.TensorContainer | void): number {
  const before = tf.memory().numTensors;
  const result = f();
  if (result) tf.dispose(result as tf.TensorContainer);
  return tf.memory().numTensors - before;
}
