import { describe, expect, it } from 'vitest';
import { PRESETS } from '../src/core/experiment';
import { TOKENIZER_VERSION } from '../src/core/tokenizer';
import { runExport } from '../src/core/archive/runExport';
import { decodeRunFile, encodeRunFile, RUN_FILE_VERSION } from '../src/core/archive/runFile';
import { metricsAt, sampleAt } from './uiFixtures';

/** A version 2 manifest: one weight of 3 floats, then Adam's two moments of it: 36 bytes. */
const manifest = {
  format: 'tir-lab-checkpoint',
  formatVersion: 2,
  tokenizerVersion: TOKENIZER_VERSION,
  config: {},
  weights: [{ name: 'w', shape: [3], offset: 0, length: 12 }],
  trainer: {
    optimizer: {
      moments: [
        { name: 'w/m', shape: [3], offset: 12, length: 12 },
        { name: 'w/v', shape: [3], offset: 24, length: 12 },
      ],
    },
  },
  meta: { step: 2 },
};
const weights = new Uint8Array(Float32Array.from([0.5, -1.25, 3, 0.01, 0.02, 0.03, 1e-4, 2e-4, 3e-4]).buffer);
const config = { ...PRESETS.quick, steps: 6, seed: 7 };
const history = [metricsAt(0, { testAccuracy: 0.1 }), metricsAt(1, { accuracy: 0.25 }), metricsAt(2, { accuracy: 0.5, codeCallFrequency: 0.75 })];
const run = {
  name: 'quick Nmax 2 ppo seed 7',
  preset: 'quick',
  config,
  metrics: history,
  samples: [sampleAt(2, 1), sampleAt(1, 0, false)],
  evaluation: { 0: 0.1, 2: 0.4 },
};
const checkpoint = { step: 2, blob: { manifest, weights } };

function fileWith(overrides: Record<string, unknown>): string {
  return JSON.stringify({ ...JSON.parse(encodeRunFile(run, checkpoint)), ...overrides });
}

describe('run files', () => {
  it('round-trips config, every metric of every step, samples, evaluation and the checkpoint bytes', () => {
    const text = encodeRunFile(run, checkpoint);
    const parsed = JSON.parse(text);
    expect(parsed.format).toBe('tir-lab-run');
    expect(parsed.formatVersion).toBe(RUN_FILE_VERSION);
    // The metrics part is the metrics export's, field for field (what npm run compare reads).
    const { format: _f, ...metricsPart } = JSON.parse(JSON.stringify(runExport(run)));
    expect(parsed).toMatchObject(metricsPart);

    const decoded = decodeRunFile(text);
    expect(decoded.formatVersion).toBe(2);
    expect(decoded.name).toBe(run.name);
    expect(decoded.preset).toBe('quick');
    expect(decoded.config).toEqual(config);
    expect(decoded.startFrom).toBe('base');
    expect(decoded.metrics).toEqual(history);
    expect(decoded.samples).toEqual(run.samples);
    expect(decoded.evaluation).toEqual({ 0: 0.1, 2: 0.4 });
    expect(decoded.passAtOne).toBeNull();
    expect(decoded.checkpoint?.step).toBe(2);
    expect(decoded.checkpoint?.blob.manifest).toEqual(manifest);
    expect(Array.from(new Float32Array(decoded.checkpoint!.blob.weights.slice().buffer))).toEqual(Array.from(new Float32Array(weights.slice().buffer)));
  });

  it('carries a run without a checkpoint, and reads a version 1 metrics export as curves only', () => {
    expect(decodeRunFile(encodeRunFile(run, null)).checkpoint).toBeNull();
    const versionOne = JSON.stringify(runExport(run));
    expect(JSON.parse(versionOne).formatVersion).toBeUndefined();
    const decoded = decodeRunFile(versionOne);
    expect(decoded.formatVersion).toBe(1);
    expect(decoded.metrics.map((m) => m.step)).toEqual([0, 1, 2]);
    expect(decoded.checkpoint).toBeNull();
  });

  it('refuses a file from a newer lab, a foreign or cut file, with the reason', () => {
    expect(() => decodeRunFile(fileWith({ formatVersion: 3 }))).toThrow('the run file is version 3, from a newer TIR Lab; this lab reads versions 1 and 2');
    expect(() => decodeRunFile(fileWith({ formatVersion: 'two' }))).toThrow('unknown run file version "two"');
    expect(() => decodeRunFile(fileWith({ format: 'tir-lab-checkpoint-file' }))).toThrow('not a TIR Lab run file: format is "tir-lab-checkpoint-file"');
    const text = encodeRunFile(run, checkpoint);
    expect(() => decodeRunFile(text.slice(0, text.length - 40))).toThrow('the file is not valid JSON (cut short or not a run file)');
    expect(() => decodeRunFile(fileWith({ metrics: [metricsAt(0), metricsAt(2), metricsAt(1)] }))).toThrow("the run file's metrics[2] is out of step order (step 1 after step 2)");
    expect(() => decodeRunFile(fileWith({ samples: [{ step: 1 }] }))).toThrow("the run file's samples[0].segments is not a list");
    expect(() => decodeRunFile(fileWith({ config: { ...config, nmax: -3 } }))).toThrow(/the run file's config is invalid: .*Nmax/i);
    expect(() => decodeRunFile(fileWith({ startFrom: 'coldstart' }))).toThrow(/does not fit together: tool format must be/);
  });

  it('refuses a checkpoint that is cut, NaN, or past the metrics (reusing the checkpoint import\'s checks)', () => {
    const cut = { step: 2, manifest, weightsBase64: btoa('abcd') };
    expect(() => decodeRunFile(fileWith({ checkpoint: cut }))).toThrow('the weights hold 4 bytes, the manifest describes 36');
    const floats = new Float32Array(weights.slice().buffer);
    floats[7] = Number.NaN; // the second value of Adam's second moment
    const nan = JSON.parse(encodeRunFile(run, { step: 2, blob: { manifest, weights: new Uint8Array(floats.buffer) } })).checkpoint;
    expect(() => decodeRunFile(fileWith({ checkpoint: nan }))).toThrow('checkpoint weight "w/v" has 1 value that is NaN or infinite');
    const late = { ...JSON.parse(encodeRunFile(run, checkpoint)).checkpoint, step: 5 };
    expect(() => decodeRunFile(fileWith({ checkpoint: late }))).toThrow('the run file\'s checkpoint is at step 5, but its metrics stop at step 2');
    expect(() => decodeRunFile(fileWith({ checkpoint: { step: 2 } }))).toThrow('malformed checkpoint');
  });
});
