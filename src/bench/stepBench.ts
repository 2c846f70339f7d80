/**
 * One whole RL step of a preset (rollouts with the sandbox, reward, filter, update), as the Trainer
 * runs it, on a copy of the model. The sandbox is wrapped to count the calls and sum their times,
 * which is what the pipelined ideal (generation + sandbox time / pool size) needs, and the tensor
 * count before the copy and after disposing the trainer gives what the step leaked.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ExperimentConfig } from '../core/experiment';
import type { GPT } from '../core/model/gpt';
import { Trainer } from '../core/rl/trainer';
import type { PythonSandbox } from '../core/sandbox/protocol';
import { countDispatches, timeSplit, type TimeSplit } from './dispatchCounter';
import { countModelFlops } from './flops';
import { round } from './generationBench';

export interface StepRun {
  nmax: number;
  seconds: { generate: number; execute: number; update: number; total: number };
  responses: number;
  policyTokens: number;
  sandboxCalls: number;
  /** Sum of the calls' own durations, as if run one after another. */
  sandboxCallSeconds: number;
  tensorsLeaked: number;
  /** The model FLOPs of the step: rollouts, the reference's log-probs and the update (src/bench/flops.ts). */
  flops: number;
  /** The step's wall time split; `other` includes the sandbox waits (seconds.execute) and the JS between kernels. */
  split: TimeSplit;
}

export async function benchStep(model: GPT, config: ExperimentConfig, sandbox: PythonSandbox): Promise<StepRun> {
  const calls = { count: 0, ms: 0 };
  const timed: PythonSandbox = {
    run: async (code, options) => {
      const started = performance.now();
      try {
        return await sandbox.run(code, options);
      } finally {
        calls.count++;
        calls.ms += performance.now() - started;
      }
    },
    close: () => sandbox.close(),
  };
  const tensorsBefore = tf.memory().numTensors;
  const trained = model.copy();
  const trainer = new Trainer(trained, config, timed);
  let record;
  let flops: number;
  const counter = countDispatches();
  const started = performance.now();
  try {
    ({ result: record, flops } = await countModelFlops(() => trainer.trainStep()));
  } finally {
    counter.stop();
    trainer.dispose();
    trained.dispose();
  }
  const wallSeconds = (performance.now() - started) / 1000;
  const { generate, execute, update } = record.metrics.seconds!;
  const responses = config.promptsPerStep * config.groupSize;
  return {
    nmax: config.nmax,
    seconds: { generate: round(generate, 3), execute: round(execute, 3), update: round(update, 3), total: round(generate + execute + update, 3) },
    responses,
    policyTokens: Math.round((record.metrics.policyTokens ?? 0) * responses),
    sandboxCalls: calls.count,
    sandboxCallSeconds: round(calls.ms / 1000, 3),
    tensorsLeaked: tf.memory().numTensors - tensorsBefore,
    flops,
    split: timeSplit(counter.counts(), wallSeconds),
  };
}

/**
 * Issue 5's bar for the pipeline: the Nmax 2 step may take at most 1.2x the Nmax 0 step plus its
 * calls' summed time shared over the pool. `ratio` is the Nmax 2 step over that ideal (<= 1.2 passes).
 */
export function pipelineCriterion(nmax2: StepRun, nmax0: StepRun, poolSize: number): { idealSeconds: number; ratio: number; met: boolean } {
  const idealSeconds = nmax0.seconds.total + nmax2.sandboxCallSeconds / poolSize;
  const ratio = nmax2.seconds.total / idealSeconds;
  return { idealSeconds: round(idealSeconds, 3), ratio: round(ratio, 3), met: ratio <= 1.2 };
}
