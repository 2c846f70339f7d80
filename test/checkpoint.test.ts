import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../src/core/experiment';
import { CheckpointManifest, deserializeCheckpoint, serializeCheckpoint, weightsFingerprint } from '../src/core/run/checkpoint';
import { GPT } from '../src/core/model/gpt';
import type { TrainerState } from '../src/core/run/trainerState';
import { TOKENIZER_VERSION } from '../src/core/tokenizer';
import { randomModel, randomWeights, TINY_CONFIG, useWasmBackend } from './modelHelpers';

beforeAll(useWasmBackend);

function logitsOf(model: GPT): Float32Array {
  return tf.tidy(() => model.forward(tf.tensor2d([[1, 5, 2, 6]], [1, 4], 'int32')).logits.dataSync() as Float32Array);
}

/** A fresh serialized tiny model, and a deep copy of its manifest to corrupt. */
function saved() {
  const model = randomModel(TINY_CONFIG, 21);
  const { manifest, weights } = serializeCheckpoint(model, { step: 3 });
  model.dispose();
  return { manifest: structuredClone(manifest) as CheckpointManifest & Record<string, unknown>, weights };
}

function refusal(manifest: unknown, weights: Uint8Array): string {
  try {
    deserializeCheckpoint(manifest, weights).model.dispose();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the checkpoint was accepted');
}

describe('checkpoint round trip', () => {
  it('restores bit-equal weights, the same logits and the meta', () => {
    const model = randomModel(TINY_CONFIG, 20);
    const meta = { seed: 20, step: 150, recipe: { toolPrior: 0.01 } };
    const { manifest, weights } = serializeCheckpoint(model, meta);
    // through JSON, as it travels on disk
    const restored = deserializeCheckpoint(JSON.parse(JSON.stringify(manifest)), weights.slice());
    expect(restored.meta).toEqual(meta);
    expect(restored.model.config).toEqual(TINY_CONFIG);
    const original = model.namedWeights();
    restored.model.namedWeights().forEach(({ name, tensor }, i) => {
      expect(name).toBe(original[i].name);
      expect(new Uint32Array(tensor.dataSync().buffer)).toEqual(new Uint32Array(original[i].tensor.dataSync().buffer));
    });
    expect(logitsOf(restored.model)).toEqual(logitsOf(model));
    restored.model.dispose();
    model.dispose();
  });

  it('writes the documented manifest: contiguous float32 little-endian entries', () => {
    const weights = randomWeights(TINY_CONFIG, 2, 0.1);
    weights.wte[0] = 1.5; // float32 0x3fc00000
    weights['valueHead.b'][0] = -2; // float32 0xc0000000
    const model = GPT.fromWeights(TINY_CONFIG, weights);
    const { manifest, weights: buffer } = serializeCheckpoint(model, {});
    expect(manifest.format).toBe('tir-lab-checkpoint');
    expect(manifest.formatVersion).toBe(1);
    expect(manifest.tokenizerVersion).toBe(TOKENIZER_VERSION);
    expect(manifest.config).toEqual(TINY_CONFIG);
    expect(manifest.weights.slice(0, 2)).toEqual([
      { name: 'wte', shape: [7, 4], offset: 0, length: 7 * 4 * 4 },
      { name: 'h.0.ln1.gamma', shape: [4], offset: 112, length: 16 },
    ]);
    expect(buffer.byteLength).toBe(model.parameterCount() * 4);
    expect(Array.from(buffer.slice(0, 4))).toEqual([0x00, 0x00, 0xc0, 0x3f]);
    expect(Array.from(buffer.slice(-4))).toEqual([0x00, 0x00, 0x00, 0xc0]);
    model.dispose();
  });
});

describe('checkpoint refusals', () => {
  it('refuses a manifest that is not an object, a foreign format or an unknown formatVersion', () => {
    const { manifest, weights } = saved();
    expect(refusal([], weights)).toBe('checkpoint manifest is not a JSON object');
    expect(refusal({ ...manifest, format: 'onnx' }, weights)).toBe(
      'not a TIR Lab checkpoint: format is "onnx", expected "tir-lab-checkpoint"',
    );
    expect(refusal({ ...manifest, formatVersion: 3 }, weights)).toBe(
      'unknown checkpoint formatVersion 3; this build reads versions 1 and 2',
    );
    expect(refusal({ ...manifest, formatVersion: 2 }, weights)).toBe('a version 2 checkpoint needs a trainer section');
  });

  it('refuses another tokenizer version', () => {
    const { manifest, weights } = saved();
    expect(refusal({ ...manifest, tokenizerVersion: TOKENIZER_VERSION + 1 }, weights)).toMatch(
      /^checkpoint was made with tokenizerVersion 2, this build has 1/,
    );
  });

  it('refuses an invalid config', () => {
    const { manifest, weights } = saved();
    expect(refusal({ ...manifest, config: { ...TINY_CONFIG, nHead: 3 } }, weights)).toBe(
      'checkpoint has an invalid config: GPT config nEmbd (4) must be divisible by nHead (3)',
    );
    expect(refusal({ ...manifest, config: undefined }, weights)).toBe(
      'checkpoint has an invalid config: GPT config must be an object, got undefined',
    );
  });

  it('refuses a missing, extra or misshapen weight', () => {
    const { manifest, weights } = saved();
    const last = manifest.weights[manifest.weights.length - 1];
    expect(refusal({ ...manifest, weights: manifest.weights.slice(0, -1) }, weights.slice(0, -4))).toBe(
      'checkpoint is missing weights: valueHead.b',
    );
    const extra = { name: 'h.1.ln1.gamma', shape: [4], offset: weights.byteLength, length: 16 };
    expect(refusal({ ...manifest, weights: [...manifest.weights, extra] }, new Uint8Array(weights.byteLength + 16))).toBe(
      'checkpoint has an extra weight "h.1.ln1.gamma" that this config does not use',
    );
    expect(refusal({ ...manifest, weights: [...manifest.weights, last] }, new Uint8Array(weights.byteLength + 4))).toBe(
      'checkpoint lists weight "valueHead.b" twice',
    );
    const misshapen = manifest.weights.map((w) => (w.name === 'wte' ? { ...w, shape: [4, 7] } : w));
    expect(refusal({ ...manifest, weights: misshapen }, weights)).toBe(
      'checkpoint weight "wte" has shape [4,7], expected [7,4]',
    );
    const wrongLength = manifest.weights.map((w) => (w.name === 'wte' ? { ...w, length: 100 } : w));
    expect(refusal({ ...manifest, weights: wrongLength }, weights)).toBe(
      'checkpoint weight "wte" has length 100 bytes, expected 112',
    );
    const gap = manifest.weights.map((w, i) => (i === 1 ? { ...w, offset: w.offset + 4 } : w));
    expect(refusal({ ...manifest, weights: gap }, weights)).toBe(
      'checkpoint weight "h.0.ln1.gamma" starts at byte 116, expected 112',
    );
    expect(refusal({ ...manifest, weights: 'all' }, weights)).toBe('checkpoint manifest has no weights list');
  });

  it('refuses a weights buffer of the wrong length', () => {
    const { manifest, weights } = saved();
    const longer = new Uint8Array(weights.byteLength + 4);
    longer.set(weights);
    expect(refusal(manifest, longer)).toBe(
      `checkpoint weights buffer has ${weights.byteLength + 4} bytes, the manifest describes ${weights.byteLength}`,
    );
    expect(refusal(manifest, weights.slice(0, -4))).toBe(
      `checkpoint weights buffer has ${weights.byteLength - 4} bytes, too short for weight "valueHead.b"`,
    );
  });

  it('refuses meta that is not an object, and leaves no tensors behind when refusing', () => {
    const { manifest, weights } = saved();
    expect(refusal({ ...manifest, meta: [1] }, weights)).toBe('checkpoint meta must be a JSON object');
    const before = tf.memory().numTensors;
    refusal({ ...manifest, formatVersion: 3 }, weights);
    refusal(manifest, weights.slice(0, -4));
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('a run checkpoint (formatVersion 2)', () => {
  /** A trainer state with distinct moment values, so a swapped or shifted moment shows. */
  function trainerState(model: GPT): TrainerState {
    const sizes = model.namedWeights().map(({ tensor }) => tensor.size);
    const moments = (base: number) => sizes.map((n, i) => Float32Array.from({ length: n }, (_, j) => base + i + j / 1000));
    return {
      step: 3,
      config: { ...PRESETS.quick, seed: 5 },
      random: { problems: 1, samples: 0xffffffff, shuffle: 123456789 },
      reference: { fingerprint: '0123456789abcdef', source: 'public/models/base' },
      optimizer: { iterations: 6, accBeta1: 0.9 ** 7, accBeta2: 0.999 ** 7, firstMoments: moments(10), secondMoments: moments(-10) },
    };
  }

  it('round-trips the trainer state, moments bit-equal, after the weights in the buffer', () => {
    const model = randomModel(TINY_CONFIG, 30);
    const state = trainerState(model);
    const { manifest, weights } = serializeCheckpoint(model, { step: 3 }, state);
    expect(manifest.formatVersion).toBe(2);
    const weightBytes = model.parameterCount() * 4;
    expect(weights.byteLength).toBe(3 * weightBytes);
    expect(manifest.trainer!.optimizer.moments[0]).toEqual({ name: 'wte/m', shape: [7, 4], offset: weightBytes, length: 112 });
    expect(manifest.trainer!.optimizer.moments.at(-1)!.name).toBe('valueHead.b/v');
    const restored = deserializeCheckpoint(JSON.parse(JSON.stringify(manifest)), weights.slice());
    expect(restored.trainer).toEqual(state);
    // The fingerprint covers the weights only: a weights-only save of the same model has the same one.
    const plain = serializeCheckpoint(model, {});
    expect(restored.fingerprint).toBe(weightsFingerprint(plain.weights));
    expect(restored.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    restored.model.dispose();
    model.dispose();
  });

  it('refuses a trainer section with a bad field, a missing moment or a buffer cut short', () => {
    const model = randomModel(TINY_CONFIG, 31);
    const { manifest, weights } = serializeCheckpoint(model, {}, trainerState(model));
    model.dispose();
    const trainer = manifest.trainer!;
    expect(refusal({ ...manifest, trainer: { ...trainer, random: { problems: -1 } } }, weights)).toBe(
      'checkpoint trainer state random must hold the uint32 positions problems, samples and shuffle',
    );
    expect(refusal({ ...manifest, trainer: { ...trainer, config: { ...trainer.config, nmax: 99 } } }, weights)).toBe(
      'checkpoint trainer state config is invalid: nmax must be between 0 and 16',
    );
    const lessMoments = { ...trainer, optimizer: { ...trainer.optimizer, moments: trainer.optimizer.moments.slice(0, -1) } };
    expect(refusal({ ...manifest, trainer: lessMoments }, weights.slice(0, -4))).toBe('checkpoint is missing optimizer moments: valueHead.b/v');
    expect(refusal(manifest, weights.slice(0, -4))).toBe(
      `checkpoint weights buffer has ${weights.byteLength - 4} bytes, too short for optimizer moment "valueHead.b/v"`,
    );
    expect(refusal({ ...manifest, formatVersion: 1 }, weights)).toBe('a version 1 checkpoint has no trainer section');
  });

  it('gives two different weights buffers different fingerprints', () => {
    const bytes = new Uint8Array(64).map((_, i) => i);
    const changed = bytes.slice();
    changed[40] ^= 1;
    expect(weightsFingerprint(bytes)).not.toBe(weightsFingerprint(changed));
    expect(weightsFingerprint(bytes)).toBe(weightsFingerprint(bytes.slice()));
  });
});
