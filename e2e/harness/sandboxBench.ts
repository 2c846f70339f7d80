/**
 * The Chromium half of the sandbox benchmark, run inside the harness page so no Playwright round
 * trip is counted: cold start of one worker, a caller's wait after a kill when the standby is warm,
 * warm call round trips for a one-line print, and pool throughput for N interpreters.
 */
import { SandboxPool } from '../../src/core/sandbox/pool';
import { WorkerInterpreter, workerInterpreterFactory } from '../../src/browser/sandbox/workerInterpreter';

export interface BrowserBenchOptions {
  coldStarts: number;
  standbyRestarts: number;
  warmCalls: number;
  throughputCalls: number;
  poolSizes: number[];
}

export const DEFAULT_BROWSER_BENCH_OPTIONS: BrowserBenchOptions = {
  coldStarts: 3,
  standbyRestarts: 3,
  warmCalls: 500,
  throughputCalls: 400,
  poolSizes: [1, 2, 4],
};

export interface Summary {
  n: number;
  median: number;
  p95: number;
  min: number;
  max: number;
}

export interface ThroughputRow {
  size: number;
  workload: string;
  calls: number;
  seconds: number;
  callsPerSecond: number;
}

export interface BrowserBenchReport {
  environment: 'chromium-worker';
  userAgent: string;
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
  /** Spawn of one worker to a loaded Pyodide with the runner in place. */
  coldStartMs: Summary;
  /** A caller's `print(1)` right after its interpreter was killed, with a warm standby (no cold start). */
  standbyStartMs: Summary;
  /** Round trip of `print(1)` through the pool (N = 1), from run() to the resolved result. */
  warmCallMs: Summary;
  throughput: ThroughputRow[];
}

/** Typical of model-written code in the lab, and a CPU-bound one for contrast. */
const WORKLOADS = {
  arithmetic: 'print(347*29+18)',
  cpuBound: 'print(sum(i*i for i in range(100000)))',
};

const KILLED_RUN = { code: 'import time\ntime.sleep(30)', timeoutMs: 50 };

export function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    n: sorted.length,
    median: round(rank(0.5)),
    p95: round(rank(0.95)),
    min: round(sorted[0]),
    max: round(sorted[sorted.length - 1]),
  };
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const startedAt = performance.now();
  const value = await work();
  return [value, performance.now() - startedAt];
}

async function expectOk(pool: SandboxPool, code: string): Promise<void> {
  const result = await pool.run(code);
  if (!result.ok) throw new Error(`benchmark run failed: ${code}: ${JSON.stringify(result.error)}`);
}

async function coldStarts(count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const [interpreter, ms] = await timed(() => WorkerInterpreter.spawn());
    samples.push(ms);
    await interpreter.terminate();
  }
  return samples;
}

async function standbyStarts(count: number): Promise<number[]> {
  const pool = new SandboxPool(workerInterpreterFactory(), { size: 1, standby: 1 });
  await pool.warmUp();
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const killed = await pool.run(KILLED_RUN.code, { timeoutMs: KILLED_RUN.timeoutMs });
    if (!killed.timedOut) throw new Error('the run meant to be killed was not');
    const [, ms] = await timed(() => expectOk(pool, 'print(1)'));
    samples.push(ms);
    while (pool.stats().standbyReady < 1) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await pool.close();
  return samples;
}

async function warmCalls(count: number): Promise<number[]> {
  const pool = new SandboxPool(workerInterpreterFactory(), { size: 1, standby: 0 });
  await pool.warmUp();
  for (let i = 0; i < 20; i++) await expectOk(pool, 'print(1)');
  const samples: number[] = [];
  for (let i = 0; i < count; i++) samples.push((await timed(() => expectOk(pool, 'print(1)')))[1]);
  await pool.close();
  return samples;
}

async function throughput(size: number, calls: number): Promise<ThroughputRow[]> {
  const pool = new SandboxPool(workerInterpreterFactory(), { size, standby: 0 });
  await pool.warmUp();
  const rows: ThroughputRow[] = [];
  for (const [workload, code] of Object.entries(WORKLOADS)) {
    await Promise.all(Array.from({ length: size * 5 }, () => expectOk(pool, code)));
    const [, ms] = await timed(() => Promise.all(Array.from({ length: calls }, () => expectOk(pool, code))));
    const seconds = ms / 1000;
    rows.push({ size, workload, calls, seconds: Math.round(seconds * 1000) / 1000, callsPerSecond: Math.round(calls / seconds) });
  }
  await pool.close();
  return rows;
}

export async function benchBrowserSandbox(options: Partial<BrowserBenchOptions> = {}): Promise<BrowserBenchReport> {
  const settings = { ...DEFAULT_BROWSER_BENCH_OPTIONS, ...options };
  const coldStartMs = summarize(await coldStarts(settings.coldStarts));
  const standbyStartMs = summarize(await standbyStarts(settings.standbyRestarts));
  const warmCallMs = summarize(await warmCalls(settings.warmCalls));
  const rows: ThroughputRow[] = [];
  for (const size of settings.poolSizes) rows.push(...(await throughput(size, settings.throughputCalls)));
  return {
    environment: 'chromium-worker',
    userAgent: navigator.userAgent,
    crossOriginIsolated: globalThis.crossOriginIsolated,
    hardwareConcurrency: navigator.hardwareConcurrency,
    coldStartMs,
    standbyStartMs,
    warmCallMs,
    throughput: rows,
  };
}
