import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { PRESETS, type Algorithm, type ExperimentConfig } from '../src/core/experiment';
import { deserializeCheckpoint, serializeCheckpoint } from '../src/core/run/checkpoint';
import { GPT } from '../src/core/model/gpt';
import type { StepMetrics } from '../src/core/metrics/stepMetrics';
import { Trainer } from '../src/core/rl/trainer';
import { BOS, encode } from '../src/core/tokenizer';
import { policyUpdate, responseLogProbs } from '../src/core/rl/policyUpdate';
import type { TrainingSequence } from '../src/core/rl/trainingBatch';
import { Random } from '../src/core/random';
import { randomModel } from './modelHelpers';
import { printsOne, TINY_MODEL, tinyTrainerConfig } from './tinyTrainer';
import { minibatchGradients } from '../src/core/rl/minibatchGradients';
import { inspectorSampleIndices } from '../src/core/rollout/rolloutSample';

function config(algorithm: Algorithm): ExperimentConfig {
  return tinyTrainerConfig({ algorithm });
}

const sandbox = printsOne;

/** A training row of text whose first 5 characters are the prompt, with one advantage on every response token. */
function sequence(text: string, advantage: number): TrainingSequence {
  const ids = encode(text);
  const response = ids.length - 5;
  return {
    ids: [BOS, ...ids],
    responseStart: 6,
    policyMask: Array(response).fill(1),
    oldLogProbs: [],
    oldValues: Array(response).fill(0),
    advantages: Array(response).fill(advantage),
    returns: Array(response).fill(0),
  };
}

/** The figures that must repeat exactly for a seed (timings excluded). */
function reproducible(m: StepMetrics) {
  const { seconds: _s, tokensPerSecond: _t, ...rest } = m;
  return rest;
}

describe('Trainer', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
  });

  it.each(['ppo', 'reinforce++', 'grpo'] as Algorithm[])('%s: leaks no tensors across steps, and without reward signal moves nothing', async (algorithm) => {
    const model = GPT.init(TINY_MODEL, 1);
    const before = model.namedWeights().map((w) => w.tensor.dataSync().slice());
    const trainer = new Trainer(model, config(algorithm), sandbox);
    const first = await trainer.trainStep();
    const tensorsAfterFirst = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) await trainer.trainStep();
    expect(tf.memory().numTensors).toBe(tensorsAfterFirst);

    const m = first.metrics;
    expect(m.step).toBe(1);
    expect(m.filterPassRate).toBe(1);
    expect(m.accuracy).toBe(0);
    expect(m.responseLength).toBeGreaterThan(0);
    expect(Number.isFinite(m.entropy)).toBe(true);
    expect(m.valueLoss === null).toBe(algorithm !== 'ppo');
    expect(first.samples).toHaveLength(PRESETS.classroom.samplesPerStep);
    // The inspector shows both prompts of the step, not one group's answers.
    expect(new Set(first.samples.map((s) => s.prompt)).size).toBe(2);
    // Every reward is 0 (a random model never answers), so every advantage is 0 and every value
    // target is the value the rollout was scored with: a zero gradient, logged as such.
    expect(m.gradNorm).toBe(0);
    expect(m.approxKl).toEqual(expect.any(Number));
    expect(Math.abs(m.approxKl!)).toBeLessThan(1e-6);
    model.namedWeights().forEach((w, i) => expect(w.tensor.dataSync()).toEqual(before[i]));
    trainer.dispose();
    model.dispose();
  });

  it('raises the log-probability of a sequence with positive advantage and lowers one with negative', async () => {
    const model = GPT.init(TINY_MODEL, 2);
    const cfg = { ...config('reinforce++'), epochs: 1 };
    const sequences = [sequence('Q: 1+ Answer: 3', 1), sequence('Q: 1+ Answer: 9', -1)];
    const old = await responseLogProbs(model, sequences, cfg.temperature);
    sequences.forEach((s, i) => (s.oldLogProbs = Array.from(old[i])));
    await policyUpdate(model, tf.train.adam(1e-2), sequences, cfg, new Random(1));
    const updated = await responseLogProbs(model, sequences, cfg.temperature);
    const total = (xs: ArrayLike<number>) => Array.from(xs).reduce((a, b) => a + b, 0);
    expect(total(updated[0])).toBeGreaterThan(total(old[0]));
    expect(total(updated[1])).toBeLessThan(total(old[1]));
    model.dispose();
  });

  it("logs the update: approximate KL 0 and the minibatch gradient's norm at the first update, the first update's KL at the second", async () => {
    const model = GPT.init(TINY_MODEL, 2);
    const cfg = { ...config('reinforce++'), epochs: 1 };
    const sequences = [sequence('Q: 1+ Answer: 3', 1), sequence('Q: 1+ Answer: 9', -1)];
    const old = await responseLogProbs(model, sequences, cfg.temperature);
    sequences.forEach((s, i) => (s.oldLogProbs = Array.from(old[i])));
    const { grads } = await minibatchGradients(model, sequences, cfg);
    const norm = Math.sqrt(Object.values(grads).reduce((sum, g) => sum + Array.from(g.dataSync()).reduce((a, x) => a + x * x, 0), 0));
    tf.dispose(Object.values(grads));
    const twin = model.copy();

    const once = await policyUpdate(model, tf.train.adam(1e-2), sequences, cfg, new Random(1));
    expect(once.gradNorm / norm).toBeCloseTo(1, 5);
    expect(Math.abs(once.approxKl)).toBeLessThan(1e-6);
    // k3 of the one update, by hand from the log-probs before and after it
    const after = await responseLogProbs(model, sequences, cfg.temperature);
    const terms = sequences.flatMap((s, i) => Array.from(after[i], (lp, t) => lp - s.oldLogProbs[t]).map((d) => Math.exp(d) - 1 - d));
    const firstUpdateKl = terms.reduce((a, b) => a + b, 0) / terms.length;
    expect(firstUpdateKl).toBeGreaterThan(1e-4);
    const twice = await policyUpdate(twin, tf.train.adam(1e-2), sequences, { ...cfg, epochs: 2 }, new Random(1));
    expect(twice.approxKl / (firstUpdateKl / 2)).toBeCloseTo(1, 3);
    model.dispose();
    twin.dispose();
  });

  it('sends the inspector one answer per group before a second from any', () => {
    // 4 groups of 4: members 0 of groups 0-3, then members 1 of groups 0 and 1
    expect(inspectorSampleIndices(16, 4, 6)).toEqual([0, 4, 8, 12, 1, 5]);
    expect(inspectorSampleIndices(8, 8, 3)).toEqual([0, 1, 2]);
    expect(inspectorSampleIndices(4, 2, 10)).toEqual([0, 2, 1, 3]);
  });

  it('gives the same numbers for the same seed and config', async () => {
    const run = async () => {
      const model = GPT.init(TINY_MODEL, 1);
      const trainer = new Trainer(model, config('ppo'), sandbox);
      const history = [];
      for (let i = 0; i < 3; i++) history.push(reproducible((await trainer.trainStep()).metrics));
      trainer.dispose();
      model.dispose();
      return history;
    };
    expect(await run()).toEqual(await run());
  });

  it('continues exactly from a checkpoint of its whole state, with the start model as KL reference', async () => {
    // Random weights with a non-zero value head: PPO's advantages are then non-zero without any
    // reward, so every update moves the weights and Adam's moments matter.
    const settings = { ...config('ppo'), klCoef: 0.05 };
    const tensorsBefore = tf.memory().numTensors;
    const weightsOf = (model: GPT) => model.namedWeights().map((w) => Array.from(w.tensor.dataSync()));

    const straight = randomModel(TINY_MODEL, 1);
    const uninterrupted = new Trainer(straight, settings, sandbox);
    const expected = [];
    for (let i = 0; i < 5; i++) expected.push(reproducible((await uninterrupted.trainStep()).metrics));
    uninterrupted.dispose();

    const first = randomModel(TINY_MODEL, 1);
    const stopped = new Trainer(first, settings, sandbox);
    for (let i = 0; i < 2; i++) await stopped.trainStep();
    const progress = await stopped.saveState();
    const reference = { fingerprint: 'start', source: 'randomModel(TINY_MODEL, 1)' };
    const saved = serializeCheckpoint(first, {}, { ...progress, config: settings, reference });
    stopped.dispose();
    first.dispose();

    const loaded = deserializeCheckpoint(JSON.parse(JSON.stringify(saved.manifest)), saved.weights);
    expect(loaded.trainer?.step).toBe(2);
    const start = randomModel(TINY_MODEL, 1);
    const resumed = new Trainer(loaded.model, settings, sandbox, { reference: start, progress: loaded.trainer! });
    const continued = [];
    for (let i = 0; i < 3; i++) continued.push(reproducible((await resumed.trainStep()).metrics));
    expect(continued).toEqual(expected.slice(2));
    expect(weightsOf(loaded.model)).toEqual(weightsOf(straight));
    resumed.dispose();

    // The same weights without the rest of the state (fresh Adam and streams, the checkpoint as
    // reference) take another step 3: the comparison above can tell.
    const again = deserializeCheckpoint(saved.manifest, saved.weights);
    const weightsOnly = new Trainer(again.model, settings, sandbox, { step: 2 });
    const other = reproducible((await weightsOnly.trainStep()).metrics);
    expect(other.step).toBe(3);
    expect(other.kl).not.toBe(expected[2].kl);
    expect(other).not.toEqual(expected[2]);
    weightsOnly.dispose();
    for (const model of [straight, start, loaded.model, again.model]) model.dispose();
    // The restored moments belong to the resumed optimizer and go with it.
    expect(tf.memory().numTensors).toBe(tensorsBefore);
  });

  it('skips the update when the filter drops every group', async () => {
    const model = GPT.init(TINY_MODEL, 1);
    const before = model.namedWeights().map((w) => w.tensor.dataSync().slice());
    const trainer = new Trainer(model, { ...config('ppo'), filterLow: 0.2, filterHigh: 0.8 }, sandbox);
    const { metrics } = await trainer.trainStep();
    expect(metrics.filterPassRate).toBe(0);
    expect(metrics.clipFraction).toBeNull();
    model.namedWeights().forEach((w, i) => expect(w.tensor.dataSync()).toEqual(before[i]));
    trainer.dispose();
    model.dispose();
  });
});
