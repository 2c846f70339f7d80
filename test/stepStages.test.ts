/**
 * Slow motion through one RL step (stepStages.ts): the trainer shows each stage's data to an
 * observer and waits for it, and a watched step trains exactly as an unwatched one. The shipped base
 * model at Nmax 1 writes code and answers some questions right, so groups pass the filter; the
 * sandbox is the real one, each run's result kept by its code, so each call's output can be checked.
 */
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BASE_CHECKPOINT } from '../src/cli/cliArgs';
import { PRESETS, type ExperimentConfig } from '../src/core/experiment';
import type { StepMetrics } from '../src/core/metrics/stepMetrics';
import type { GPT } from '../src/core/model/gpt';
import { formatToolOutput } from '../src/core/rollout/episode';
import { inspectorSampleIndices } from '../src/core/rollout/rolloutSample';
import { STEP_STAGES, type StepStage } from '../src/core/rl/stepStages';
import { Trainer } from '../src/core/rl/trainer';
import type { SandboxPool } from '../src/core/sandbox/pool';
import type { PythonSandbox, RunResult } from '../src/core/sandbox/protocol';
import { loadCheckpointDir } from '../src/node/checkpointFiles';
import { createNodeSandbox } from '../src/node/sandbox/nodeSandbox';
import { useWasmBackend } from './modelHelpers';

const GROUPS = 8;
const GROUP_SIZE = 8;
const ROLLOUTS = GROUPS * GROUP_SIZE;
const config: ExperimentConfig = { ...PRESETS.quick, algorithm: 'grpo', seed: 1, testEvery: 1000, samplesPerStep: ROLLOUTS };

/** The real sandbox, with what each run returned kept by its code. */
const ran = new Map<string, RunResult>();
let pool: SandboxPool;
const sandbox: PythonSandbox = {
  async run(code, options) {
    const result = await pool.run(code, options);
    ran.set(code, result);
    return result;
  },
  close: async () => {},
};

function reproducible(m: StepMetrics) {
  const { seconds: _s, tokensPerSecond: _t, ...rest } = m;
  return rest;
}

const weightsOf = (model: GPT) => model.namedWeights().map((w) => w.tensor.dataSync().slice());

let base: GPT;
beforeAll(async () => {
  await useWasmBackend();
  base = (await loadCheckpointDir(DEFAULT_BASE_CHECKPOINT)).model;
  pool = createNodeSandbox({ size: 2 });
});
afterAll(async () => {
  base.dispose();
  await pool.close();
});

describe('a step in slow motion', () => {
  it('trains exactly as a normal step from the same state, and leaks no tensors', async () => {
    const plainModel = base.copy();
    const watchedModel = base.copy();
    const plain = new Trainer(plainModel, config, sandbox);
    const watched = new Trainer(watchedModel, config, sandbox);
    const seen: string[] = [];
    const observer = async (stage: StepStage) => void seen.push(stage.stage);

    let tensorsAfterFirst = 0;
    for (let step = 1; step <= 2; step++) {
      const a = await plain.trainStep();
      const b = await watched.trainStep(observer);
      if (step === 1) tensorsAfterFirst = tf.memory().numTensors;
      expect(tf.memory().numTensors).toBe(tensorsAfterFirst);
      expect(reproducible(b.metrics)).toEqual(reproducible(a.metrics));
      expect(b.samples).toEqual(a.samples);
      expect(weightsOf(watchedModel)).toEqual(weightsOf(plainModel));
    }
    // The step moved the weights (so equal weights are not equal because nothing trained).
    expect(weightsOf(watchedModel)).not.toEqual(weightsOf(base));
    expect(seen).toEqual([...STEP_STAGES, ...STEP_STAGES]);
    for (const t of [plain, watched]) t.dispose();
    plainModel.dispose();
    watchedModel.dispose();
  });

  it("shows one group's answers, code, outputs, rewards and advantages stage by stage, and waits before the update", async () => {
    const model = base.copy();
    const start = weightsOf(model);
    const trainer = new Trainer(model, config, sandbox);
    const stages: StepStage[] = [];
    const weightsAt: Record<string, boolean> = {};
    const record = await trainer.trainStep(async (stage) => {
      stages.push(stage);
      weightsAt[stage.stage] = JSON.stringify(weightsOf(model)) === JSON.stringify(start);
    });
    expect(stages.map((s) => s.stage)).toEqual([...STEP_STAGES]);
    // Unchanged weights until the update stage: the step waits for the observer between stages.
    expect(weightsAt).toEqual({ rollouts: true, python: true, rewards: true, advantages: true, update: false });

    const [rollouts, python, rewards, advantages, update] = stages;
    const group = advantages.group;
    expect(group.kept).toBe(true);
    expect(group.count).toBe(GROUPS);
    // The samples list every rollout (samplesPerStep = all): the shown group's, in its order.
    const order = inspectorSampleIndices(ROLLOUTS, GROUP_SIZE, ROLLOUTS);
    const groupSamples = Array.from({ length: GROUP_SIZE }, (_, j) => record.samples[order.indexOf(group.index * GROUP_SIZE + j)]);
    expect(groupSamples.every((s) => s.prompt === group.prompt)).toBe(true);
    expect(group.expected).toBe(groupSamples[0].expected);

    expect(rollouts.group.answers.map((a) => a.segments)).toEqual(groupSamples.map((s) => s.segments));
    expect(rollouts.group.answers.every((a) => a.reward === null && a.advantage === null && a.tokens === null && a.parts === null)).toBe(true);
    expect(stages.every((s) => s.algorithm === 'grpo')).toBe(true);
    expect(rollouts.group.meanReward).toBeNull();
    expect(rewards.group.kept).toBeNull();

    const calls = python.group.answers.flatMap((a) => a.calls);
    expect(calls.filter((c) => c.output !== null).length).toBeGreaterThan(0);
    // What the model read back: the run's stdout without its last newline (outputs here are short),
    // or for a call that raised (the base copies `a x b` as written) the environment's error line.
    for (const call of calls) {
      const result = call.ok === null ? null : ran.get(call.code)!;
      if (result === null) expect(call.output).toBeNull();
      else if (result.ok) expect(call.output).toBe(result.stdout.replace(/\n$/, ''));
      else {
        expect(call.output).toBe(formatToolOutput(result, config.maxOutputChars));
        expect(call.output!.startsWith(`${result.error!.type}: `)).toBe(true);
      }
    }

    const groupRewards = groupSamples.map((s) => s.reward);
    expect(rewards.group.answers.map((a) => a.reward)).toEqual(groupRewards);
    const mean = groupRewards.reduce((a, b) => a + b, 0) / GROUP_SIZE;
    expect(rewards.group.meanReward).toBe(mean);
    expect(rewards.group.answers.every((a) => a.advantage === null && a.parts === null)).toBe(true);

    // GRPO: (reward - group mean) / (group std + 1e-6) on every policy token, 0 on the tool's output.
    const std = Math.sqrt(groupRewards.reduce((a, r) => a + (r - mean) ** 2, 0) / GROUP_SIZE);
    group.answers.forEach((answer, j) => {
      const expected = (groupRewards[j] - mean) / (std + 1e-6);
      expect(answer.advantage).toBeCloseTo(expected, 5);
      expect(answer.tokens!.map((t) => t.text).join('')).toBe(groupSamples[j].response);
      for (const token of answer.tokens!) expect(token.advantage).toBeCloseTo(token.policy ? expected : 0, 5);
      // Its parts, which the panel shows, recompute it.
      expect(answer.parts).toEqual({ baseline: mean, shift: 0, scale: expect.closeTo(std + 1e-6, 12) });
      const { baseline, shift, scale } = answer.parts!;
      expect(Math.abs((answer.reward! - baseline - shift) / scale - answer.advantage!)).toBeLessThan(1e-6);
    });

    expect(update.metrics).toEqual(record.metrics);
    expect([rollouts, python, rewards, advantages].every((s) => s.metrics === null)).toBe(true);
    trainer.dispose();
    model.dispose();
  });
});
