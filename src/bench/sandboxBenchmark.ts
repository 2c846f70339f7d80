/**
 * The sandbox benchmark, for any InterpreterFactory (Node child processes, browser workers): cold
 * start, a caller's wait after a kill when the standby is warm, warm round trips of a one-line
 * print, and pool throughput for N interpreters. Times are wall clock, from the caller's side.
 */
import { SandboxPool } from '../core/sandbox/pool';
import type { InterpreterFactory } from '../core/sandbox/protocol';

export interface SandboxBenchOptions {
  coldStarts: number;
  standbyRestarts: number;
  warmCalls: number;
  throughputCalls: number;
  poolSizes: number[];
}

export const DEFAULT_SANDBOX_BENCH_OPTIONS: SandboxBenchOptions = {
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

export interface SandboxBenchReport {
  label: string;
  /** Factory call to an interpreter ready to run (Pyodide loaded, runner in place). */
  coldStartMs: Summary;
  /** A caller's `print(1)` right after its interpreter was killed, with a warm standby. */
  standbyStartMs: Summary;
  /** Round trip of `print(1)` through a pool of one, from run() to the result. */
  warmCallMs: Summary;
  throughput: ThroughputRow[];
}

/** Typical of model-written code, and a CPU-bound one for contrast. */
export const BENCH_WORKLOADS: Record<string, string> = {
  arithmetic: 'print(347*29+18)',
  cpuBound: 'print(sum(i*i for i in range(100000)))',
};

/** Sleeps in C, so the interrupt cannot stop it: the interpreter is killed and replaced. */
const KILLED_RUN = { code: 'import time\ntime.sleep(30)', timeoutMs: 50 };
const WARM_UP_CALLS = 20;

export function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return { n: sorted.length, median: round(rank(0.5)), p95: round(rank(0.95)), min: round(sorted[0]!), max: round(sorted.at(-1)!) };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const startedAt = performance.now();
  await work();
  return performance.now() - startedAt;
}

async function expectOk(pool: SandboxPool, code: string): Promise<void> {
  const result = await pool.run(code);
  if (!result.ok) throw new Error(`benchmark run failed: ${code}: ${JSON.stringify(result.error)}`);
}

async function coldStarts(factory: InterpreterFactory, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const startedAt = performance.now();
    const interpreter = await factory();
    samples.push(performance.now() - startedAt);
    await interpreter.terminate();
  }
  return samples;
}

async function standbyStarts(factory: InterpreterFactory, count: number): Promise<number[]> {
  const pool = new SandboxPool(factory, { size: 1, standby: 1 });
  const samples: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      await pool.warmUp();
      const killed = await pool.run(KILLED_RUN.code, { timeoutMs: KILLED_RUN.timeoutMs });
      if (!killed.timedOut) throw new Error('the run meant to be killed was not');
      samples.push(await timed(() => expectOk(pool, 'print(1)')));
    }
  } finally {
    await pool.close();
  }
  return samples;
}

async function warmCalls(factory: InterpreterFactory, count: number): Promise<number[]> {
  const pool = new SandboxPool(factory, { size: 1, standby: 0 });
  const samples: number[] = [];
  try {
    await pool.warmUp();
    for (let i = 0; i < WARM_UP_CALLS; i++) await expectOk(pool, 'print(1)');
    for (let i = 0; i < count; i++) samples.push(await timed(() => expectOk(pool, 'print(1)')));
  } finally {
    await pool.close();
  }
  return samples;
}

async function throughput(factory: InterpreterFactory, size: number, calls: number): Promise<ThroughputRow[]> {
  const pool = new SandboxPool(factory, { size, standby: 0 });
  const rows: ThroughputRow[] = [];
  try {
    await pool.warmUp();
    for (const [workload, code] of Object.entries(BENCH_WORKLOADS)) {
      await Promise.all(Array.from({ length: size * WARM_UP_CALLS }, () => expectOk(pool, code)));
      const ms = await timed(() => Promise.all(Array.from({ length: calls }, () => expectOk(pool, code))));
      const seconds = ms / 1000;
      rows.push({ size, workload, calls, seconds: Math.round(ms) / 1000, callsPerSecond: Math.round(calls / seconds) });
    }
  } finally {
    await pool.close();
  }
  return rows;
}

export async function benchSandbox(
  factory: InterpreterFactory,
  label: string,
  options: Partial<SandboxBenchOptions> = {},
): Promise<SandboxBenchReport> {
  const settings = { ...DEFAULT_SANDBOX_BENCH_OPTIONS, ...options };
  const coldStartMs = summarize(await coldStarts(factory, settings.coldStarts));
  const standbyStartMs = summarize(await standbyStarts(factory, settings.standbyRestarts));
  const warmCallMs = summarize(await warmCalls(factory, settings.warmCalls));
  const rows: ThroughputRow[] = [];
  for (const size of settings.poolSizes) rows.push(...(await throughput(factory, size, settings.throughputCalls)));
  return { label, coldStartMs, standbyStartMs, warmCallMs, throughput: rows };
}
