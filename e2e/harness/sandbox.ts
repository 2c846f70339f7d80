/**
 * Harness page for the e2e suite and the Chromium benchmark: puts the browser sandbox on
 * `window.sandboxHarness`, so Playwright drives it through page.evaluate.
 */
import type { RunOptions, RunResult } from '../../src/core/sandbox/protocol';
import type { SandboxPool, SandboxPoolStats } from '../../src/core/sandbox/pool';
import { benchSandbox, type SandboxBenchOptions, type SandboxBenchReport } from '../../src/bench/sandboxBenchmark';
import { createBrowserSandbox, type BrowserSandboxOptions } from '../../src/browser/sandbox/createBrowserSandbox';
import { WorkerInterpreter, workerInterpreterFactory } from '../../src/browser/sandbox/workerInterpreter';
import type { NestedReply, NestedRequest } from './nestedSandbox.worker';

/** A result plus the round trip the page saw, from run() to the resolved promise. */
export interface TimedRunResult extends RunResult {
  wallMs: number;
}

/** The shared sandbox benchmark over worker interpreters, measured inside the page. */
export interface ChromiumBenchReport extends SandboxBenchReport {
  userAgent: string;
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
}

/** What a factory's first three workers said at their start, what `code` printed in each, and the start times (ms). */
export interface MemorySnapshotCheck {
  restored: boolean[];
  snapshotBytes: number[];
  stdout: string[];
  /** Each worker's first run (`code`) and second (`print(6*7)`), wall ms. */
  runMs: [number, number][];
  firstTwoStartMs: number;
  thirdStartMs: number;
  loneStartMs: number;
}

export interface WebGpuCheck {
  adapter: boolean;
  isFallbackAdapter: boolean | null;
  vendor: string | null;
}

/** Just what the check reads; the field moved from the adapter to adapter.info in newer Chromium. */
interface GpuAdapterLike {
  isFallbackAdapter?: boolean;
  info?: { isFallbackAdapter?: boolean; vendor?: string };
}
interface GpuNavigator {
  gpu?: { requestAdapter(): Promise<GpuAdapterLike | null> };
}

let sandbox: SandboxPool | null = null;

function current(): SandboxPool {
  if (!sandbox) throw new Error('call sandboxHarness.open() first');
  return sandbox;
}

const harness = {
  /** Replaces the page's sandbox with a new pool and waits until its interpreters and standby are warm. */
  async open(options: BrowserSandboxOptions = {}): Promise<void> {
    await sandbox?.close();
    sandbox = createBrowserSandbox(options);
    await sandbox.warmUp();
  },

  async run(code: string, options: Partial<RunOptions> = {}): Promise<TimedRunResult> {
    const startedAt = performance.now();
    const result = await current().run(code, options);
    return { ...result, wallMs: performance.now() - startedAt };
  },

  stats(): SandboxPoolStats {
    return current().stats();
  },

  /** Resolves once the pool has a warm standby again (after a recycle), or throws after limitMs. */
  async whenStandbyReady(limitMs = 30_000): Promise<void> {
    const deadline = performance.now() + limitMs;
    while (current().stats().standbyReady < 1) {
      if (performance.now() > deadline) throw new Error(`no warm standby within ${limitMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  },

  async close(): Promise<void> {
    await sandbox?.close();
    sandbox = null;
  },

  /** Runs codes through a sandbox opened inside a worker, as the trainer worker does. */
  async runInWorker(codes: string[], options: Partial<RunOptions> = {}): Promise<NestedReply> {
    const worker = new Worker(new URL('./nestedSandbox.worker.ts', import.meta.url), { type: 'module' });
    try {
      return await new Promise<NestedReply>((resolve, reject) => {
        worker.onmessage = ({ data }: MessageEvent<NestedReply>) => resolve(data);
        worker.onerror = (event) => reject(new Error(`nested sandbox worker failed: ${event.message}`));
        worker.postMessage({ codes, options } satisfies NestedRequest);
      });
    } finally {
      worker.terminate();
    }
  },

  /**
   * A fresh factory's first worker makes the memory snapshot, the second (asked at once, as a pool
   * does at its start) and third start from it; a lone spawn, neither. Runs `code` in each.
   */
  async memorySnapshotCheck(code: string): Promise<MemorySnapshotCheck> {
    const factory = workerInterpreterFactory();
    let startedAt = performance.now();
    const [first, second] = (await Promise.all([factory(), factory()])) as WorkerInterpreter[];
    const firstTwoStartMs = performance.now() - startedAt;
    startedAt = performance.now();
    const third = (await factory()) as WorkerInterpreter;
    const thirdStartMs = performance.now() - startedAt;
    startedAt = performance.now();
    const lone = await WorkerInterpreter.spawn();
    const loneStartMs = performance.now() - startedAt;
    const all = [first, second, third, lone];
    try {
      const stdout: string[] = [];
      const runMs: [number, number][] = [];
      const options = { timeoutMs: 10_000, maxOutputBytes: 100_000 };
      for (const interpreter of all) {
        let runStarted = performance.now();
        stdout.push((await interpreter.run(code, options)).stdout);
        const first = performance.now() - runStarted;
        runStarted = performance.now();
        await interpreter.run('print(6*7)', options);
        runMs.push([first, performance.now() - runStarted]);
      }
      return {
        restored: all.map((interpreter) => interpreter.restoredFromSnapshot),
        snapshotBytes: all.map((interpreter) => interpreter.memorySnapshot?.byteLength ?? 0),
        stdout,
        runMs,
        firstTwoStartMs,
        thirdStartMs,
        loneStartMs,
      };
    } finally {
      await Promise.all(all.map((interpreter) => interpreter.terminate()));
    }
  },

  async webgpu(): Promise<WebGpuCheck> {
    const adapter = await (navigator as unknown as GpuNavigator).gpu?.requestAdapter();
    if (!adapter) return { adapter: false, isFallbackAdapter: null, vendor: null };
    const isFallbackAdapter = adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter ?? null;
    return { adapter: true, isFallbackAdapter, vendor: adapter.info?.vendor ?? null };
  },

  async bench(options: Partial<SandboxBenchOptions> = {}): Promise<ChromiumBenchReport> {
    const report = await benchSandbox(workerInterpreterFactory(), 'chromium-worker', options);
    return {
      ...report,
      userAgent: navigator.userAgent,
      crossOriginIsolated: globalThis.crossOriginIsolated,
      hardwareConcurrency: navigator.hardwareConcurrency,
    };
  },
};

export type SandboxHarness = typeof harness;

declare global {
  interface Window {
    sandboxHarness: SandboxHarness;
  }
}

window.sandboxHarness = harness;
