import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { runBenchmark, SHORT_SIZES, type BenchReport } from '../src/bench/benchmark';
import { countDispatches } from '../src/bench/dispatchCounter';
import { generateWithCache } from '../src/bench/generationBench';
import { BASE_MODEL_CONFIG, type GPTConfig } from '../src/core/model/config';
import { GPT } from '../src/core/model/gpt';
import type { PythonSandbox, RunResult } from '../src/core/sandbox/protocol';
import { VOCAB_SIZE } from '../src/core/tokenizer';
import { BENCH_REPORT_SCHEMA, schemaErrors } from './benchReportSchema';
import { useWasmBackend } from './modelHelpers';

beforeAll(useWasmBackend);

describe('countDispatches', () => {
  it('counts each kernel call and each readback (and its bytes), by name, until stopped', async () => {
    const a = tf.tensor1d([1, 2, 3]);
    const b = tf.tensor1d([10, 20, 30]);
    const counter = countDispatches();
    const sum = tf.add(a, b);
    const product = tf.mul(sum, 2); // the scalar 2 is uploaded, not a kernel
    expect(Array.from(product.dataSync())).toEqual([22, 44, 66]);
    expect(Array.from(await sum.data())).toEqual([11, 22, 33]);
    // two reads of 3 float32 each
    expect(counter.counts()).toMatchObject({ kernels: 2, readbacks: 2, readbackBytes: 24, byKernel: { Add: 1, Multiply: 1 } });
    expect(counter.counts().kernelMs).toBeGreaterThan(0);
    expect(counter.counts().readbackMs).toBeGreaterThan(0);
    counter.reset();
    tf.dispose(tf.add(a, b));
    expect(counter.counts()).toMatchObject({ kernels: 1, readbacks: 0, readbackBytes: 0, byKernel: { Add: 1 }, readbackMs: 0 });
    counter.stop();
    tf.dispose(tf.add(a, b));
    product.dataSync();
    expect(counter.counts().kernels).toBe(1);
    expect(counter.counts().readbacks).toBe(0);
    expect(Object.prototype.hasOwnProperty.call(tf.engine(), 'runKernel')).toBe(false);
    tf.dispose([a, b, sum, product]);
  });
});

describe('a token step of the base model through the KV cache', () => {
  it('costs 42 kernel calls on wasm and one readback', async () => {
    // Per layer 12 (the lab's wasm kernels, wasmKernels.ts): RMS norm x 2, qkv matMul, the cache
    // written in place x 2 (keys, values), ALiBi attention, proj matMul, residual add, fc matMul,
    // GELU gate, proj matMul, residual add. Then the embedding lookup 1, final RMS norm 1, two head
    // matMuls and their two reshapes: 3 x 12 + 6 = 42 (99 with tfjs's own ops).
    const model = GPT.init(BASE_MODEL_CONFIG, 1);
    const steps = 4;
    const run = await generateWithCache(model, 2, steps, 1);
    model.dispose();
    // the rollout's one read of the kept values adds a concat
    expect(run.dispatchesPerTokenStep).toBe((42 * steps + 1) / steps);
    // one logits readback per step, one for all the values at the end
    expect(run.readbacksPerTokenStep).toBe((steps + 1) / steps);
    // each step's logits [2, 99] and, at the end, every step's two values, as float32
    expect(run.readbackBytesPerTokenStep).toBe((steps * 2 * 99 * 4 + steps * 2 * 4) / steps);
    // per layer 4 projections; the two heads
    expect(run.kernelsPerTokenStep._FusedMatMul).toBe(4 * 3 + 2);
  });
});

/** The vocabulary the prompts need, everything else small, so the short run takes seconds. */
const SMALL_CONFIG: GPTConfig = { vocabSize: VOCAB_SIZE, contextLength: 128, nLayer: 1, nHead: 2, nEmbd: 16, mlpRatio: 2 };

/** Answers every call at once, as a warm sandbox would, and counts them. */
function fakeSandbox(): PythonSandbox & { calls: number } {
  const result: RunResult = { ok: true, stdout: '10081\n', stderr: '', timedOut: false, truncated: false, durationMs: 0.5 };
  return {
    calls: 0,
    async run() {
      this.calls++;
      return result;
    },
    async close() {},
  };
}

describe('runBenchmark (short sizes, small model, fake sandbox)', () => {
  it('fills every field of the report with a number or a name, and leaks no tensor', async () => {
    const model = GPT.init(SMALL_CONFIG, 3);
    const sandbox = fakeSandbox();
    const before = tf.memory().numTensors;
    const report: BenchReport = await runBenchmark({ model, modelSource: 'test', sandbox, sizes: { ...SHORT_SIZES, stepRuns: 3 } });
    expect(tf.memory().numTensors).toBe(before);
    model.dispose();

    expect(schemaErrors(report, BENCH_REPORT_SCHEMA)).toEqual([]);
    expect(report.backend).toBe('wasm');
    expect(report.model.parameters).toBe(model.parameterCount());
    expect(report.generate.batch).toBe(SHORT_SIZES.batch);
    expect(report.generate.newTokens).toBe(SHORT_SIZES.newTokens);
    expect(report.generate.tokensPerSecond).toBeGreaterThan(0);
    expect(report.update.tokens).toBe(SHORT_SIZES.batch * (16 + SHORT_SIZES.newTokens));
    expect(report.sandbox.calls).toBe(SHORT_SIZES.sandboxCalls);
    expect(sandbox.calls).toBeGreaterThanOrEqual(SHORT_SIZES.sandboxCalls + 5);
    expect(report.step.nmax2.nmax).toBe(2);
    expect(report.step.nmax0.nmax).toBe(0);
    expect(report.step.nmax0.sandboxCalls).toBe(0);
    expect(report.step.nmax2.responses).toBe(SHORT_SIZES.step.promptsPerStep! * SHORT_SIZES.step.groupSize!);
    // each step run three times; the reported run is the one of median total
    for (const nmax of ['nmax2', 'nmax0'] as const) {
      const totals = report.step.totals[nmax];
      expect(totals).toHaveLength(3);
      expect(report.step[nmax].seconds.total).toBe([...totals].sort((a, b) => a - b)[1]);
    }
    // the update ran (the bench opens the filter band, so a model that solves nothing still trains)
    expect(report.step.nmax2.seconds.update).toBeGreaterThan(0);
    expect(report.tensorsLeakedPerStep).toBe(0);
    const kernelSum = Object.values(report.kernelsPerTokenStep).reduce((a, b) => a + b, 0);
    expect(kernelSum).toBeCloseTo(report.dispatchesPerTokenStep, 0);
    expect(report.readbacksPerTokenStep).toBeGreaterThanOrEqual(1);
  });
});
