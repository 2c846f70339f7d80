/**
 * Harness page for the e2e suite and the Chromium benchmark: puts the browser sandbox on
 * `window.sandboxHarness`, so Playwright drives it through page.evaluate.
 */
import type { RunOptions, RunResult } from '../../src/core/sandbox/protocol';
import type { SandboxPool, SandboxPoolStats } from '../../src/core/sandbox/pool';
import { benchSandbox, type SandboxBenchOptions, type SandboxBenchReport } from '../../src/bench/sandboxBenchmark';
import { createBrowserSandbox, type BrowserSandboxOptions } from '../../src/browser/sandbox/createBrowserSandbox';
import { workerInterpreterFactory } from '../../src/browser/sandbox/workerInterpreter';
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
