import { describe, expect, it } from 'vitest';
import { PRESETS } from '../src/core/experiment';
import { TOKENIZER_VERSION } from '../src/core/tokenizer';
import {
  base64ToBytes,
  bytesToBase64,
  decodeCheckpointFile,
  decodeCheckpointPair,
  encodeCheckpointFile,
} from '../src/core/archive/checkpointFile';

/** A manifest for two weights, 2x3 and 4 floats: 24 + 16 = 40 bytes. */
function manifest(overrides: Record<string, unknown> = {}) {
  return {
    format: 'tir-lab-checkpoint',
    formatVersion: 1,
    tokenizerVersion: TOKENIZER_VERSION,
    config: { vocabSize: 99, contextLength: 8, nLayer: 1, nHead: 1, nEmbd: 4, mlpRatio: 4 },
    weights: [
      { name: 'a', shape: [2, 3], offset: 0, length: 24 },
      { name: 'b', shape: [4], offset: 24, length: 16 },
    ],
    meta: { step: 7 },
    ...overrides,
  };
}

/** Ten finite floats (-1, 0.25, 2, ...), as a trained model's weights are. */
const weights = new Uint8Array(Float32Array.from({ length: 10 }, (_, i) => (i - 1) * 0.25 * (i % 3 === 2 ? 8 : 1)).buffer);
const run = { name: 'quick run', preset: 'quick', config: PRESETS.quick, step: 20 };

function fileWith(overrides: Record<string, unknown>): string {
  return JSON.stringify({ ...JSON.parse(encodeCheckpointFile({ manifest: manifest(), weights }, run)), ...overrides });
}

describe('checkpoint files', () => {
  it('refuses weights that are NaN or infinite, naming the weight, in a file and in the CLI pair', () => {
    for (const bad of [NaN, Infinity]) {
      const floats = new Float32Array(weights.slice().buffer);
      floats[7] = bad; // the 2nd value of "b" (floats 6-9)
      const broken = new Uint8Array(floats.buffer);
      const message = 'checkpoint weight "b" has 1 value that is NaN or infinite: the run it was saved from diverged, so it cannot be trained or sampled';
      expect(() => decodeCheckpointFile(encodeCheckpointFile({ manifest: manifest(), weights: broken }, run))).toThrow(message);
      expect(() => decodeCheckpointPair(JSON.stringify(manifest()), broken)).toThrow(message);
    }
  });

  it('round-trips manifest, weights bytes and run through one JSON file', () => {
    const text = encodeCheckpointFile({ manifest: manifest(), weights }, run);
    const decoded = decodeCheckpointFile(text);
    expect(decoded.blob.manifest).toEqual(manifest());
    expect(Array.from(decoded.blob.weights)).toEqual(Array.from(weights));
    expect(decoded.run).toEqual(run);
    expect(decoded.step).toBe(20);
  });

  it("refuses a run name or preset longer than a run file's, before anything is stored", () => {
    for (const long of [{ name: 'n'.repeat(20 * 1024 * 1024) }, { preset: 'p'.repeat(201) }]) {
      const text = encodeCheckpointFile({ manifest: manifest(), weights }, { ...run, ...long });
      expect(() => decodeCheckpointFile(text)).toThrow("the checkpoint file's run name or preset is longer than 200 characters");
    }
  });

  it('takes the step from the manifest meta when the file has no run', () => {
    const decoded = decodeCheckpointFile(encodeCheckpointFile({ manifest: manifest(), weights }, null));
    expect(decoded.run).toBeNull();
    expect(decoded.step).toBe(7);
  });

  it('reads the CLI pair, model.json and weights.bin', () => {
    const decoded = decodeCheckpointPair(JSON.stringify(manifest({ meta: {} })), weights);
    expect(decoded.step).toBe(0);
    expect(decoded.blob.weights).toBe(weights);
  });

  it("reads a run's checkpoint (version 2): Adam's moments follow the weights in the buffer", () => {
    const moments = [
      { name: 'a/m', shape: [2, 3], offset: 40, length: 24 },
      { name: 'b/m', shape: [4], offset: 64, length: 16 },
      { name: 'a/v', shape: [2, 3], offset: 80, length: 24 },
      { name: 'b/v', shape: [4], offset: 104, length: 16 },
    ];
    const runManifest = manifest({ formatVersion: 2, trainer: { step: 7, optimizer: { iterations: 7, moments } } });
    const buffer = Uint8Array.from({ length: 120 }, (_, i) => i);
    expect(decodeCheckpointPair(JSON.stringify(runManifest), buffer).step).toBe(7);
    expect(() => decodeCheckpointPair(JSON.stringify(runManifest), weights)).toThrow(
      'the weights hold 40 bytes, the manifest describes 120: the file is cut or does not belong to this manifest',
    );
    expect(() => decodeCheckpointPair(JSON.stringify(manifest({ formatVersion: 3 })), weights)).toThrow(
      'unknown checkpoint formatVersion 3; this lab reads versions 1 and 2',
    );
  });

  it('encodes base64 exactly, across the chunk boundary', () => {
    expect(bytesToBase64(Uint8Array.from([77, 97, 110]))).toBe('TWFu');
    const big = Uint8Array.from({ length: 0x8000 * 2 + 5 }, (_, i) => i % 251);
    expect(Array.from(base64ToBytes(bytesToBase64(big)))).toEqual(Array.from(big));
  });

  it.each([
    ['not JSON', 'PK\u0003\u0004 zip bytes', 'the file is not valid JSON, so it is not a TIR Lab checkpoint'],
    ['a JSON array', '[1,2]', 'not a TIR Lab checkpoint: the file is not a JSON object'],
    ['someone else\'s JSON', '{"format":"keras"}', 'not a TIR Lab checkpoint: format is "keras", expected "tir-lab-checkpoint-file"'],
    ['a run export', '{"format":"tir-lab-run"}', 'this is a run export (metrics), not a checkpoint'],
    ['a lone model.json', JSON.stringify(manifest()), 'this is a model.json manifest alone: choose it together with its weights.bin'],
    ['a newer file version', fileWith({ formatVersion: 2 }), 'unknown checkpoint file version 2; this lab reads version 1'],
    ['no weights', fileWith({ weightsBase64: 5 }), 'the checkpoint file has no weights'],
    ['broken base64', fileWith({ weightsBase64: '@@@@' }), 'the checkpoint weights are not valid base64'],
    ['cut weights', fileWith({ weightsBase64: bytesToBase64(weights.subarray(0, 36)) }), 'the weights hold 36 bytes, the manifest describes 40: the file is cut or does not belong to this manifest'],
    ['another tokenizer', fileWith({ manifest: manifest({ tokenizerVersion: 999 }) }), `the checkpoint was made with tokenizer version 999, this lab has ${TOKENIZER_VERSION}: its token ids would mean other characters`],
    ['a foreign manifest', fileWith({ manifest: manifest({ format: 'onnx' }) }), 'not a TIR Lab checkpoint: manifest format is "onnx", expected "tir-lab-checkpoint"'],
    ['a gap in the weights', fileWith({ manifest: manifest({ weights: [{ name: 'a', shape: [2, 3], offset: 0, length: 24 }, { name: 'b', shape: [4], offset: 28, length: 16 }] }) }), 'checkpoint weight "b" does not fit the weights buffer (offset 28, length 16)'],
    ['a bad run config', fileWith({ run: { ...run, config: { ...PRESETS.quick, nmax: -1 } } }), 'the run config in the file is invalid: nmax must be between 0 and 16'],
    ['a bad run step', fileWith({ run: { ...run, step: 1.5 } }), 'the checkpoint file has no valid step'],
  ])('refuses %s with a clear message', (_what, text, message) => {
    expect(() => decodeCheckpointFile(text)).toThrow(message);
  });
});
