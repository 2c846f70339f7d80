import * as tf from '@tensorflow/tfjs-core';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHUNK_SHAPES, fitChunkCost, timeChunk } from '../src/bench/chunkCost';
import { GPT } from '../src/core/model/gpt';
import { useWasmBackend } from './modelHelpers';

beforeAll(useWasmBackend);

describe('the update chunk cost fit', () => {
  it('recovers the constants of timings made by the cost model itself', () => {
    // ms = 9 + 0.1 r w (1 + w / 250): overhead 90 row-positions.
    const timings = CHUNK_SHAPES.map(([rows, width]) => ({ rows, width, ms: 9 + 0.1 * rows * width * (1 + width / 250) }));
    const fit = fitChunkCost(timings);
    expect(fit.overheadMs).toBeCloseTo(9, 6);
    expect(fit.positionMs).toBeCloseTo(0.1, 9);
    expect(fit.widthDoubling).toBeCloseTo(250, 4);
    expect(fit.overheadPositions).toBeCloseTo(90, 4);
  });

  it('fits noisy timings by least squares, and refuses timings that cannot determine it', () => {
    const noise = [0.3, -0.2, 0.1, -0.4, 0.2, -0.1, 0.4, -0.3, 0.2, -0.2, 0.1];
    const timings = CHUNK_SHAPES.map(([rows, width], i) => ({ rows, width, ms: 9 + 0.1 * rows * width * (1 + width / 250) + noise[i] }));
    const fit = fitChunkCost(timings);
    expect(Math.abs(fit.overheadMs - 9)).toBeLessThan(0.5);
    expect(Math.abs(fit.widthDoubling - 250) / 250).toBeLessThan(0.05);
    // One shape repeated leaves three unknowns and one equation.
    expect(() => fitChunkCost([1, 2, 3].map(() => ({ rows: 4, width: 30, ms: 20 })))).toThrow('time at least three shapes');
  });

  it('times a forward and backward pass without leaking tensors', async () => {
    const model = GPT.init({ vocabSize: 99, contextLength: 32, nLayer: 1, nHead: 2, nEmbd: 8, mlpRatio: 2 }, 1);
    const before = tf.memory().numTensors;
    expect(await timeChunk(model, 2, 8, 2)).toBeGreaterThan(0);
    expect(tf.memory().numTensors).toBe(before);
    model.dispose();
  });
});

describe('npm run bench:chunks', () => {
  const run = promisify(execFile);
  const tsx = join('node_modules', '.bin', 'tsx');

  it('prints its usage for --help (exit 0) and refuses a bad --repeats (exit 2)', async () => {
    const help = await run(tsx, ['src/cli/bench/benchChunks.ts', '--help']);
    expect(help.stdout).toContain('usage: npm run --silent bench:chunks -- [--base CHECKPOINT_DIR] [--repeats N] [--json]');
    const failure = await run(tsx, ['src/cli/bench/benchChunks.ts', '--repeats', '0']).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain("bench:chunks: --repeats must be a positive integer, got '0'");
  }, 60_000);

  // Issue 25: Number() read '0x10' as 16 and the benchmark ran 16 repeats.
  it('refuses a --repeats not written in decimal (exit 2), before it times anything', async () => {
    const failure = await run(tsx, ['src/cli/bench/benchChunks.ts', '--repeats', '0x10'], { timeout: 120_000 }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain("bench:chunks: --repeats must be a positive integer, got '0x10'");
  }, 180_000);
});
