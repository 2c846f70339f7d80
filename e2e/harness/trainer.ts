/**
 * Harness page for the trainer worker's browser check (e2e/trainerWorker.spec.ts): starts the
 * real worker, lets it pick (or force) a backend, and times RL steps on a preset, watching the
 * page for long tasks. Exposed as `window.trainerHarness` for page.evaluate.
 */
import { PRESETS, type ExperimentConfig } from '../../src/core/experiment';
import type { RolloutSample } from '../../src/core/rollout/rolloutSample';
import type { StepMetrics } from '../../src/core/metrics/stepMetrics';
import type { BackendChoice, BackendInfo, LabEvent } from '../../src/trainerWorker/protocol';
import { connectTrainerWorker, type TrainerConnection } from '../../src/ui/controller/trainerConnection';

export interface TrainerRunRequest {
  backend: BackendChoice;
  preset: string;
  /** RL steps after the step-0 evaluation. */
  steps: number;
  baseModelUrl?: string;
  overrides?: Partial<ExperimentConfig>;
}

export interface TrainerRunReport {
  /** The call that failed and its message ("startRun: ..."), or null. */
  failure: string | null;
  info: BackendInfo | null;
  initMs: number;
  /** Wall time of startRun, which includes the step-0 held-out evaluation. */
  startRunMs: number;
  /** Wall time of each step() call, in ms. */
  stepMs: number[];
  stepsPerMinute: number;
  metrics: StepMetrics[];
  lastSamples: RolloutSample[];
  statuses: string[];
  errors: string[];
  /** Page long tasks (> 50 ms) seen while the worker trained. */
  longTasks: number;
}

/** The last run's worker stays up (its Python pool may still be loading) until the next run or the page closes. */
let lastWorker: TrainerConnection | null = null;

async function run(request: TrainerRunRequest): Promise<TrainerRunReport> {
  lastWorker?.close();
  const events: LabEvent[] = [];
  let longTasks = 0;
  const observer = new PerformanceObserver((list) => (longTasks += list.getEntries().length));
  observer.observe({ type: 'longtask', buffered: false });
  const worker = connectTrainerWorker(() => undefined);
  lastWorker = worker;
  let phase = 'init';
  let failure: string | null = null;
  let info: BackendInfo | null = null;
  let initMs = 0;
  let startRunMs = 0;
  const stepMs: number[] = [];
  try {
    let started = performance.now();
    info = await worker.api.init({ backend: request.backend, baseModelUrl: request.baseModelUrl ?? '/models/base/model.json' }, (e) => events.push(e));
    initMs = performance.now() - started;
    const config = { ...PRESETS[request.preset], ...request.overrides, steps: request.steps };
    phase = 'startRun';
    started = performance.now();
    await worker.api.startRun('harness', config);
    startRunMs = performance.now() - started;
    console.info(`harness: init ${Math.round(initMs)} ms, startRun ${Math.round(startRunMs)} ms`);
    for (let i = 0; i < request.steps; i++) {
      phase = `step ${i + 1}`;
      started = performance.now();
      await worker.api.step();
      stepMs.push(performance.now() - started);
      console.info(`harness: ${phase} ${Math.round(stepMs[i])} ms`);
    }
  } catch (error) {
    failure = `${phase}: ${(error as Error).message}`;
  }
  try {
    // Let the last events cross from the worker.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const steps = events.filter((e): e is Extract<LabEvent, { type: 'step' }> => e.type === 'step');
    const meanMs = stepMs.reduce((a, b) => a + b, 0) / Math.max(stepMs.length, 1);
    return {
      failure,
      info,
      initMs,
      startRunMs,
      stepMs,
      stepsPerMinute: 60_000 / meanMs,
      metrics: steps.map((e) => e.metrics),
      lastSamples: steps.at(-1)?.samples ?? [],
      statuses: events.flatMap((e) => (e.type === 'status' ? [`${e.status}@${e.step}`] : [])),
      errors: events.flatMap((e) => (e.type === 'error' ? [e.message] : [])),
      longTasks,
    };
  } finally {
    observer.disconnect();
  }
}

/** Init alone, for a forced backend that must fail with a clear message. */
async function initOnly(backend: BackendChoice, baseModelUrl = '/models/base/model.json'): Promise<{ info: BackendInfo | null; error: string | null }> {
  const worker = connectTrainerWorker(() => undefined);
  try {
    return { info: await worker.api.init({ backend, baseModelUrl }, () => undefined), error: null };
  } catch (error) {
    return { info: null, error: (error as Error).message };
  } finally {
    worker.close();
  }
}

/** Pretrains a few steps in the worker (the pretrain panel's path) and returns what the page saw. */
async function pretrain(backend: BackendChoice, steps: number, baseModelUrl = '/models/base/model.json') {
  lastWorker?.close();
  const worker = connectTrainerWorker(() => undefined);
  lastWorker = worker;
  const events: LabEvent[] = [];
  await worker.api.init({ backend, baseModelUrl }, (e) => events.push(e));
  const blob = await worker.api.pretrain({ steps, seed: 3, toolPrior: 0.05 });
  await new Promise((resolve) => setTimeout(resolve, 50));
  return {
    losses: events.flatMap((e) => (e.type === 'pretrainStep' ? [e.loss] : [])),
    progress: events.flatMap((e) => (e.type === 'progress' ? [{ done: e.done, total: e.total, etaSeconds: e.etaSeconds }] : [])),
    meta: (blob.manifest as { meta: Record<string, unknown> }).meta,
    weightBytes: blob.weights.byteLength,
  };
}

const harness = { run, initOnly, pretrain };
export type TrainerHarness = typeof harness;

declare global {
  interface Window {
    trainerHarness: TrainerHarness;
  }
}

window.trainerHarness = harness;
