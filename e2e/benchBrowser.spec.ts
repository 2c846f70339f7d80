/**
 * The browser benchmark's JSON schema (issue 5: "runs in CI in a short mode and its JSON schema is
 * tested"): runs `npm run bench:browser` itself, at the short sizes on a small random model, on
 * wasm and on WebGPU (SwiftShader here), and checks that stdout is one JSON object with every field
 * present and of the right type. Times are not checked; counts that must hold are (no leak, one
 * readback per token step at least). A backend that fails reports `{ error }` from the page.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import type { BackendBenchReport } from './harness/bench';
import type { BrowserBenchReport } from '../src/cli/bench/benchBrowser';
import type { BackendInfo } from '../src/trainerWorker/protocol';
import { BENCH_REPORT_SCHEMA, schemaErrors, type Schema } from '../test/benchReportSchema';

const run = promisify(execFile);

const ADAPTER: Schema = { vendor: 'string', architecture: 'string', isFallbackAdapter: 'boolean' };

/** The engine's report plus what the page adds: its sizes, sandbox pool and run time. */
const BACKEND_REPORT: Schema = {
  ...BENCH_REPORT_SCHEMA,
  sizes: {
    name: 'string',
    batch: 'number',
    newTokens: 'number',
    sandboxCalls: 'number',
    step: { promptsPerStep: 'number', groupSize: 'number', epochs: 'number', minibatchSize: 'number', maxResponseTokens: 'number' },
    stepRuns: 'number',
  },
  sandboxPool: { size: 'number', standby: 'number' },
  backendReason: 'string',
  wallSeconds: 'number',
};

const REPORT: Schema = {
  machine: { node: 'string', cpus: 'number', loadAverage1m: { before: 'number', after: 'number' }, short: 'boolean', wallSeconds: 'number' },
  browser: { version: 'string', userAgent: 'string', crossOriginIsolated: 'boolean', hardwareConcurrency: 'number', webgpuAdapter: ADAPTER },
  autoPick: { name: 'string', probeMs: 'object', reason: 'string' },
  backends: { wasm: BACKEND_REPORT, webgpu: { ...BACKEND_REPORT, adapter: ADAPTER } },
};

test('npm run bench:browser -- --short prints one JSON object with every field, for wasm and webgpu', async () => {
  // About a minute on an idle machine; the margin is for the load of the shared cores (each
  // backend page starts Pyodide, and SwiftShader compiles every WebGPU shader on the CPU).
  test.setTimeout(240_000);
  const args = ['src/cli/bench/benchBrowser.ts', '--json', '--short', '--small-model', '--backends', 'wasm,webgpu'];
  // One interpreter and no standby: one Pyodide start per page instead of three, on two shared cores.
  args.push('--sandbox-pool', '1,0', '--timeout-s', '150');
  const { stdout, stderr } = await run('node_modules/.bin/tsx', args, { timeout: 230_000, maxBuffer: 1 << 24 });
  console.log(stderr.split('\n').filter((line) => line.startsWith('bench:')).join('\n'));
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  const report = JSON.parse(lines[0]) as BrowserBenchReport;

  expect(schemaErrors(report, REPORT)).toEqual([]);
  expect(Object.keys(report.backends)).toEqual(['wasm', 'webgpu']);
  expect(report.machine.short).toBe(true);
  expect(report.browser.crossOriginIsolated).toBe(true);
  expect(['webgpu', 'webgl', 'wasm', 'cpu']).toContain((report.autoPick as BackendInfo).name);
  const backends = report.backends as Record<string, BackendBenchReport>;
  for (const [name, result] of Object.entries(backends)) {
    expect(result.backend).toBe(name);
    expect(result.sizes).toMatchObject({ name: 'short', batch: 8, newTokens: 16, sandboxCalls: 20, stepRuns: 1 });
    expect(result.step.totals).toEqual({ nmax2: [result.step.nmax2.seconds.total], nmax0: [result.step.nmax0.seconds.total] });
    expect(result.generate).toMatchObject({ batch: 8, newTokens: 16 });
    expect(result.sandbox.calls).toBe(20);
    expect(result.sandboxPool).toEqual({ size: 1, standby: 0 });
    expect(result.step.nmax2.nmax).toBe(2);
    expect(result.step.nmax0.sandboxCalls).toBe(0);
    expect(result.step.nmax2.responses).toBe(8);
    expect(result.model.source).toMatch(/^random init/);
    expect(result.readbacksPerTokenStep).toBeGreaterThanOrEqual(1);
    // A token step reads back the sampled (token, log-prob) pairs on webgpu, the logits [8, 99] elsewhere;
    // the values [8] come back in one read at the end (float32 throughout).
    const sampledBytes = name === 'webgpu' ? 8 * 2 * 4 : 8 * 99 * 4;
    expect(result.readbackBytesPerTokenStep).toBe(sampledBytes + 8 * 4);
    expect(result.tensorsLeakedPerStep).toBe(0);
  }
  expect(backends.wasm.adapter).toBeNull();
});

test('a backend whose run fails reports { error } instead of throwing', async ({ page }) => {
  await page.goto('/e2e/harness/bench.html');
  await page.waitForFunction(() => 'benchHarness' in window);
  const result = await page.evaluate(() =>
    window.benchHarness.run({
      backend: 'wasm',
      sizeName: 'short',
      sizes: { batch: 1, newTokens: 1, sandboxCalls: 1, step: {}, stepRuns: 1, matmul: { seconds: 0.01, largeSide: 16 } },
      model: { url: '/models/no-such-model/model.json' },
      sandboxPool: { size: 1, standby: 0 },
    }),
  );
  expect(result).toEqual({ error: expect.stringMatching(/could not fetch \/models\/no-such-model\/model\.json/) });
});
