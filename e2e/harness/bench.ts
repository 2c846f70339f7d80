/**
 * Harness page for the browser benchmark (npm run bench:browser, src/cli/bench/benchBrowser.ts): runs the
 * engine's benchmark (src/bench/benchmark.ts) on one tfjs backend, with the model fetched as
 * the lab fetches it and the lab's Python worker pool as the sandbox. It runs on the page's main
 * thread; the CLI opens one page per backend, so backends never share a tfjs engine or GPU context.
 * Exposed as `window.benchHarness` for page.evaluate.
 */
import { PRESETS } from '../../src/core/experiment';
import { runBenchmark, type BenchReport, type BenchSizes } from '../../src/bench/benchmark';
import { deserializeCheckpoint } from '../../src/core/run/checkpoint';
import type { GPTConfig } from '../../src/core/model/config';
import { GPT } from '../../src/core/model/gpt';
import type { SandboxPoolOptions } from '../../src/core/sandbox/pool';
import { fetchCheckpoint } from '../../src/browser/checkpointFetch';
import { createBrowserSandbox } from '../../src/browser/sandbox/createBrowserSandbox';
import { chooseBackend } from '../../src/browser/tf/chooseBackend';
import { registerBrowserBackends } from '../../src/browser/tf/registerBrowserBackends';
import { queryWebGPUAdapter, type AdapterFacts } from '../../src/browser/tf/webgpuAdapter';
import type { BackendInfo, BackendName } from '../../src/trainerWorker/protocol';

export interface BackendBenchRequest {
  backend: BackendName;
  /** What the CLI calls these sizes (full, medium, short), echoed in the report. */
  sizeName: string;
  sizes: BenchSizes;
  /** The checkpoint's URL (as the lab loads it), or a random init of a given shape (for tests). */
  model: { url: string } | { config: GPTConfig; seed: number };
  sandboxPool: Pick<SandboxPoolOptions, 'size' | 'standby'>;
}

/** The RL step's shape as the benchmark ran it: the classroom preset with the sizes' overrides. */
export interface StepShape {
  promptsPerStep: number;
  groupSize: number;
  epochs: number;
  minibatchSize: number;
  maxResponseTokens: number;
}

/** The engine's report, plus what this run was: its sizes, sandbox pool and adapter. */
export interface BackendBenchReport extends BenchReport {
  sizes: { name: string; batch: number; newTokens: number; sandboxCalls: number; step: StepShape; stepRuns: number };
  sandboxPool: Pick<SandboxPoolOptions, 'size' | 'standby'>;
  /** The WebGPU adapter the backend ran on (webgpu only; null elsewhere). */
  adapter: AdapterFacts | null;
  /** How the lab's backend choice started it (for wasm: which build, threads or not, and why). */
  backendReason: string;
  /** This backend's whole run: start, model load, sandbox warm-up and the benchmark. */
  wallSeconds: number;
}

export type BackendBenchResult = BackendBenchReport | { error: string };

export interface BrowserFacts {
  userAgent: string;
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
  webgpuAdapter: AdapterFacts | null;
  /** Why there is no adapter, when there is none. */
  webgpuProblem: string | null;
}

function progress(backend: BackendName, message: string): void {
  console.info(`bench: ${backend}: ${message}`);
}

function stepShape(step: BenchSizes['step']): StepShape {
  const config = { ...PRESETS.classroom, ...step };
  const { promptsPerStep, groupSize, epochs, minibatchSize, maxResponseTokens } = config;
  return { promptsPerStep, groupSize, epochs, minibatchSize, maxResponseTokens };
}

/** The benchmark on one backend; any failure becomes `{ error }` so the other backends still run. */
async function run(request: BackendBenchRequest): Promise<BackendBenchResult> {
  const started = performance.now();
  const { backend } = request;
  let model: GPT | null = null;
  const sandbox = createBrowserSandbox({ pool: request.sandboxPool });
  // Pyodide loads while the backend starts and the model loads; awaited before the benchmark.
  const sandboxReady = sandbox.warmUp();
  sandboxReady.catch(() => undefined);
  try {
    registerBrowserBackends();
    progress(backend, 'starting the backend');
    const info = await chooseBackend(backend);
    let modelSource: string;
    if ('url' in request.model) {
      progress(backend, `loading ${request.model.url}`);
      const blob = await fetchCheckpoint(request.model.url);
      model = deserializeCheckpoint(blob.manifest, blob.weights).model;
      modelSource = request.model.url;
    } else {
      model = GPT.init(request.model.config, request.model.seed);
      modelSource = `random init (seed ${request.model.seed}) of ${JSON.stringify(request.model.config)}`;
    }
    progress(backend, 'waiting for the Python sandbox');
    await sandboxReady;
    const report = await runBenchmark({
      model,
      modelSource,
      sandbox,
      sizes: request.sizes,
      onPhase: (name) => progress(backend, `${name} (${((performance.now() - started) / 1000).toFixed(1)} s)`),
    });
    const { batch, newTokens, sandboxCalls, step, stepRuns } = request.sizes;
    return {
      ...report,
      sizes: { name: request.sizeName, batch, newTokens, sandboxCalls, step: stepShape(step), stepRuns },
      sandboxPool: request.sandboxPool,
      adapter: info.adapter,
      backendReason: info.reason,
      wallSeconds: Math.round((performance.now() - started) / 100) / 10,
    };
  } catch (error) {
    return { error: (error as Error).message || String(error) };
  } finally {
    model?.dispose();
    await sandbox.close();
  }
}

/** What the lab's 'auto' choice picks here, and why (its timed probe of every backend). */
async function autoPick(): Promise<BackendInfo> {
  registerBrowserBackends();
  return chooseBackend('auto');
}

async function browserFacts(): Promise<BrowserFacts> {
  const { adapter, problem } = await queryWebGPUAdapter();
  return {
    userAgent: navigator.userAgent,
    crossOriginIsolated: globalThis.crossOriginIsolated,
    hardwareConcurrency: navigator.hardwareConcurrency,
    webgpuAdapter: adapter,
    webgpuProblem: problem,
  };
}

const harness = { run, autoPick, browserFacts };
export type BenchHarness = typeof harness;

declare global {
  interface Window {
    benchHarness: BenchHarness;
  }
}

window.benchHarness = harness;
