/**
 * The performance benchmark (issue 5) as one report: generation with and without the KV cache and
 * what a token step dispatches, the PPO update, warm sandbox calls, and one RL step of the
 * classroom preset with Nmax 2 and Nmax 0. The Node and browser CLIs build the model, backend and
 * sandbox and print the report; the shape here is what test/bench.test.ts checks.
 */
import * as tf from '@tensorflow/tfjs-core';
import { PRESETS, type ExperimentConfig } from '../core/experiment';
import type { GPT } from '../core/model/gpt';
import { summarize } from './sandboxBenchmark';
import type { PythonSandbox } from '../core/sandbox/protocol';
import { generateByRecompute, generateWithCache, round, type CachedGenerationRun, type GenerationRun } from './generationBench';
import { benchStep, type StepRun } from './stepBench';
import { benchUpdate, type UpdateRun } from './updateBench';
import type { TimeSplit } from './dispatchCounter';
import { measureMatmulPeak, modelMatmulShapes, type MatmulPeak } from './matmulPeak';

export interface BenchSizes {
  /** Sequences decoded together (16 prompts x 8 samples, the classroom's step until it took 32). */
  batch: number;
  newTokens: number;
  /** Warm `print(...)` round trips timed for the sandbox figures. */
  sandboxCalls: number;
  /** The preset's step, shrunk in short mode. */
  step: Partial<ExperimentConfig>;
  /**
   * Times each step is run, Nmax 2 and Nmax 0 alternately, and the KV-cache generation; the run of
   * median time is reported. The work is the same seeded work every time, so the spread is the
   * machine's noise, and a first run's warm-up does not fall on one figure alone.
   */
  stepRuns: number;
  /** Least seconds each matmul shape of the roofline is timed, and the side of its large square product. */
  matmul: { seconds: number; largeSide: number };
}

// The step of 16 prompts that docs/performance.md's figures measured, so they stay comparable.
export const FULL_SIZES: BenchSizes = {
  batch: 128,
  newTokens: 128,
  sandboxCalls: 200,
  step: { promptsPerStep: 16, minibatchSize: 32 },
  stepRuns: 3,
  matmul: { seconds: 0.3, largeSide: 1024 },
};

/** For CI: the same code paths at a size that runs in well under a minute. */
export const SHORT_SIZES: BenchSizes = {
  batch: 8,
  newTokens: 16,
  sandboxCalls: 20,
  step: { promptsPerStep: 2, groupSize: 4, minibatchSize: 8, maxResponseTokens: 24 },
  stepRuns: 1,
  matmul: { seconds: 0.02, largeSide: 256 },
};

export interface BenchReport {
  backend: string;
  model: { source: string; parameters: number };
  generate: {
    batch: number;
    newTokens: number;
    tokensPerSecond: number;
    recomputeTokensPerSecond: number;
    /** KV cache over recompute. */
    speedup: number;
    seconds: number;
    recomputeSeconds: number;
  };
  update: UpdateRun;
  sandbox: { calls: number; medianMs: number; p95Ms: number };
  /** The median runs, and every run's total seconds in the order run. */
  step: { nmax2: StepRun; nmax0: StepRun; totals: { nmax2: number[]; nmax0: number[] } };
  dispatchesPerTokenStep: number;
  readbacksPerTokenStep: number;
  readbackBytesPerTokenStep: number;
  kernelsPerTokenStep: Record<string, number>;
  tensorsLeakedPerStep: number;
  roofline: Roofline;
}

/** A phase's achieved rate against the same run's matmul peak, and where its time went. */
export interface RooflinePhase {
  gflops: number;
  seconds: number;
  gflopsPerSecond: number;
  /** gflopsPerSecond / the matmul peak. */
  peakFraction: number;
  split: TimeSplit;
}

export interface Roofline {
  matmul: MatmulPeak;
  /** Generation through the KV cache (the run above). */
  generate: RooflinePhase;
  /** One PPO minibatch: forward, backward, Adam (the run above). */
  update: RooflinePhase;
  /** The Nmax 2 step (its median run): rollouts with the sandbox, reference log-probs, update. */
  step: RooflinePhase & { sandboxWaitSeconds: number };
}

export interface BenchInputs {
  model: GPT;
  /** Where the weights came from (a checkpoint path, or "random init"). */
  modelSource: string;
  sandbox: PythonSandbox;
  sizes: BenchSizes;
  /** Called between phases, e.g. to show progress on stderr. */
  onPhase?: (name: string) => void;
}

const SANDBOX_CODE = 'print(347*29+18)';
const SANDBOX_WARM_UP = 5;

export async function runBenchmark({ model, modelSource, sandbox, sizes, onPhase }: BenchInputs): Promise<BenchReport> {
  const phase = onPhase ?? (() => {});
  phase('generate (KV cache)');
  await generateWithCache(model, Math.min(sizes.batch, 4), 4, 0); // first calls of each kernel are slow on wasm
  // The first run at the full batch paid for the heap's growth and the JIT (0.91 s against 0.52 and
  // 0.57 s after it, quiet machine): the median of `stepRuns` runs of the same seeded work.
  const cachedRuns: CachedGenerationRun[] = [];
  for (let run = 1; run <= sizes.stepRuns; run++) cachedRuns.push(await generateWithCache(model, sizes.batch, sizes.newTokens, 1));
  const cached = medianBy(cachedRuns, (r) => r.seconds);
  phase('generate (recompute)');
  const recomputed: GenerationRun = await generateByRecompute(model, sizes.batch, sizes.newTokens, 1);
  phase('update');
  // The filter band opened wide, so the step always has an update to time (a random-init model
  // solves nothing, and the classroom band would drop every group).
  const preset = { ...PRESETS.classroom, filterLow: 0, filterHigh: 1, ...sizes.step };
  const update = await benchUpdate(model, preset, sizes.batch, sizes.newTokens);
  phase('sandbox');
  const sandboxFigures = await benchSandboxCalls(sandbox, sizes.sandboxCalls);
  const runs: { nmax2: StepRun[]; nmax0: StepRun[] } = { nmax2: [], nmax0: [] };
  for (let run = 1; run <= sizes.stepRuns; run++) {
    phase(`step nmax 2 (${run}/${sizes.stepRuns})`);
    runs.nmax2.push(await benchStep(model, { ...preset, nmax: 2 }, sandbox));
    phase(`step nmax 0 (${run}/${sizes.stepRuns})`);
    runs.nmax0.push(await benchStep(model, { ...preset, nmax: 0 }, sandbox));
  }
  const [nmax2, nmax0] = [medianBy(runs.nmax2, (r) => r.seconds.total), medianBy(runs.nmax0, (r) => r.seconds.total)];
  phase('matmul peak');
  // the update's chunks hold about 4,000 row-positions (28 rows of 144 at the full sizes)
  const chunkRows = Math.min(sizes.batch * (sizes.newTokens + 17), 4096);
  const matmul = await measureMatmulPeak(modelMatmulShapes(model.config, chunkRows, sizes.batch, sizes.matmul.largeSide), sizes.matmul.seconds);
  const rooflinePhase = (flops: number, seconds: number, split: TimeSplit): RooflinePhase => ({
    gflops: round(flops / 1e9, 3),
    seconds,
    gflopsPerSecond: round(flops / 1e9 / seconds, 2),
    peakFraction: round(flops / 1e9 / seconds / matmul.peakGflopsPerSecond, 3),
    split,
  });
  const totals = { nmax2: runs.nmax2.map((r) => r.seconds.total), nmax0: runs.nmax0.map((r) => r.seconds.total) };
  return {
    backend: tf.getBackend(),
    model: { source: modelSource, parameters: model.parameterCount() },
    generate: {
      batch: cached.batch,
      newTokens: cached.newTokens,
      tokensPerSecond: cached.tokensPerSecond,
      recomputeTokensPerSecond: recomputed.tokensPerSecond,
      speedup: round(cached.tokensPerSecond / recomputed.tokensPerSecond, 2),
      seconds: cached.seconds,
      recomputeSeconds: recomputed.seconds,
    },
    update,
    sandbox: sandboxFigures,
    step: { nmax2, nmax0, totals },
    dispatchesPerTokenStep: cached.dispatchesPerTokenStep,
    readbacksPerTokenStep: cached.readbacksPerTokenStep,
    readbackBytesPerTokenStep: cached.readbackBytesPerTokenStep,
    kernelsPerTokenStep: cached.kernelsPerTokenStep,
    tensorsLeakedPerStep: Math.max(...[...runs.nmax2, ...runs.nmax0].map((r) => r.tensorsLeaked)),
    roofline: {
      matmul,
      generate: rooflinePhase(cached.flops, cached.seconds, cached.split),
      update: rooflinePhase(update.flops, update.seconds, update.split),
      step: { ...rooflinePhase(nmax2.flops, nmax2.seconds.total, nmax2.split), sandboxWaitSeconds: nmax2.seconds.execute },
    },
  };
}

/** The run of median time (the lower middle one of an even count). */
function medianBy<Run>(runs: Run[], seconds: (run: Run) => number): Run {
  return [...runs].sort((a, b) => seconds(a) - seconds(b))[Math.floor((runs.length - 1) / 2)];
}

/** Sequential warm round trips of a typical model-written line, as the trainer's caller sees them. */
async function benchSandboxCalls(sandbox: PythonSandbox, calls: number): Promise<BenchReport['sandbox']> {
  const samples: number[] = [];
  for (let i = 0; i < SANDBOX_WARM_UP + calls; i++) {
    const started = performance.now();
    const result = await sandbox.run(SANDBOX_CODE);
    if (!result.ok) throw new Error(`sandbox benchmark call failed: ${JSON.stringify(result.error)}`);
    if (i >= SANDBOX_WARM_UP) samples.push(performance.now() - started);
  }
  const summary = summarize(samples);
  return { calls, medianMs: summary.median, p95Ms: summary.p95 };
}
