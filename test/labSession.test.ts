/**
 * The lab's trainer session and worker API in Node (wasm backend), with a tiny model and a fake
 * sandbox: runs start, step, pause, reset to the base bit-equal, checkpoints round-trip, bad input
 * is refused with the field's message, pretraining reports progress, and no tensor leaks.
 */
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { NUMERIC_BOUNDS, PRESETS, type ExperimentConfig } from '../src/core/experiment';
import { deserializeCheckpoint, serializeCheckpoint } from '../src/core/run/checkpoint';
import type { GPTConfig } from '../src/core/model/config';
import { GPT } from '../src/core/model/gpt';
import type { StepMetrics } from '../src/core/metrics/stepMetrics';
import { STEP_STAGES } from '../src/core/rl/stepStages';
import type { PythonSandbox, RunResult } from '../src/core/sandbox/protocol';
import { VOCAB_SIZE } from '../src/core/tokenizer';
import { LabSession } from '../src/trainerWorker/labSession';
import type { PretrainShape } from '../src/trainerWorker/pretrainJob';
import { progressEvent } from '../src/trainerWorker/progressEvent';
import type { ModelAnswer } from '../src/core/rollout/answerQuestion';
import type { AskedModel } from '../src/trainerWorker/askRequest';
import type { CheckpointBlob } from '../src/core/run/checkpointBlob';
import type { BackendInfo, LabEvent } from '../src/trainerWorker/protocol';
import { createTrainerApi } from '../src/trainerWorker/trainerApi';
import { WorkQueue } from '../src/trainerWorker/workQueue';
import { useNodeBackend } from '../src/node/tfBackend';
import { startGradientThreads } from '../src/node/gradients/gradientThreads';
import type { GradientHelper, GradientHelperSet } from '../src/core/rl/gradientHelpers';

const TINY: GPTConfig = { vocabSize: VOCAB_SIZE, contextLength: 96, nLayer: 1, nHead: 2, nEmbd: 16, mlpRatio: 2 };
const TINY_PRETRAIN: PretrainShape = { model: TINY, batchSize: 2, rowLength: 32 };

/** Quick preset cut down to seconds: 2 prompts x 2 samples, short responses, every group kept. */
const CONFIG: ExperimentConfig = {
  ...PRESETS.quick,
  steps: 4,
  promptsPerStep: 2,
  groupSize: 2,
  minibatchSize: 4,
  maxResponseTokens: 12,
  maxOutputChars: 16,
  filterLow: 0,
  filterHigh: 1,
  testEvery: 1000,
  samplesPerStep: 2,
};

/** Evaluates `print(<integer arithmetic>)` with a small parser (never eval); anything else is a NameError. */
class ArithmeticSandbox implements PythonSandbox {
  runs = 0;

  async run(code: string): Promise<RunResult> {
    this.runs++;
    const match = /^\s*print\(([\d\s+\-*()]+)\)\s*$/.exec(code);
    const value = match ? evaluateArithmetic(match[1]) : null;
    if (value === null) {
      return { ok: false, stdout: '', stderr: '', error: { type: 'NameError', message: 'not arithmetic' }, timedOut: false, truncated: false, durationMs: 0 };
    }
    return { ok: true, stdout: `${value}\n`, stderr: '', timedOut: false, truncated: false, durationMs: 0 };
  }

  async close(): Promise<void> {}
}

/** + - * and parentheses over integers, left to right with the usual precedence; null when malformed. */
function evaluateArithmetic(text: string): number | null {
  const tokens = text.match(/\d+|[+\-*()]/g) ?? [];
  let at = 0;
  const factor = (): number | null => {
    const token = tokens[at++];
    if (token === '(') {
      const inner = sum();
      return tokens[at++] === ')' ? inner : null;
    }
    if (token === '-') {
      const inner = factor();
      return inner === null ? null : -inner;
    }
    return token !== undefined && /^\d+$/.test(token) ? Number(token) : null;
  };
  const product = (): number | null => {
    let left = factor();
    while (left !== null && tokens[at] === '*') {
      at++;
      const right = factor();
      left = right === null ? null : left * right;
    }
    return left;
  };
  const sum = (): number | null => {
    let left = product();
    while (left !== null && (tokens[at] === '+' || tokens[at] === '-')) {
      const op = tokens[at++];
      const right = product();
      left = right === null ? null : op === '+' ? left + right : left - right;
    }
    return left;
  };
  const value = sum();
  return at === tokens.length ? value : null;
}

/**
 * A random tiny model whose critic predicts 0.5 everywhere. It never earns a reward, so with the
 * usual zero critic every advantage would be 0 and an update would change nothing.
 */
function baseBlob(): CheckpointBlob {
  const init = GPT.init(TINY, 7);
  const weights = Object.fromEntries(init.namedWeights().map(({ name, tensor }) => [name, tensor.dataSync() as Float32Array]));
  init.dispose();
  weights['valueHead.b'] = new Float32Array([0.5]);
  const model = GPT.fromWeights(TINY, weights);
  const blob = serializeCheckpoint(model, { kind: 'test-base' });
  model.dispose();
  return blob;
}

/** A start model that is not the base: the base's weights with the token embeddings scaled, so its log-probs differ. */
function tinyStartModel(): CheckpointBlob {
  const blob = baseBlob();
  const { model } = deserializeCheckpoint(blob.manifest, blob.weights);
  const weights = Object.fromEntries(model.namedWeights().map(({ name, tensor }) => [name, tensor.dataSync() as Float32Array]));
  model.dispose();
  weights.wte = weights.wte.map((w) => w * 3);
  const start = GPT.fromWeights(TINY, weights);
  const startBlob = serializeCheckpoint(start, { kind: 'test-start' });
  start.dispose();
  return startBlob;
}

function newSession(events: LabEvent[], onEvent: (event: LabEvent) => void = () => undefined, yieldToEvents?: () => Promise<void>): LabSession {
  const blob = baseBlob();
  const { model, meta, fingerprint } = deserializeCheckpoint(blob.manifest, blob.weights);
  return new LabSession({
    base: model,
    baseMeta: meta,
    baseFingerprint: fingerprint,
    sandbox: new ArithmeticSandbox(),
    emit: (event) => {
      events.push(event);
      onEvent(event);
    },
    pretrainShape: TINY_PRETRAIN,
    yieldToEvents,
  });
}

const macrotask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const stepEvents = (events: LabEvent[]) => events.filter((e): e is Extract<LabEvent, { type: 'step' }> => e.type === 'step');
const statusEvents = (events: LabEvent[]) => events.filter((e): e is Extract<LabEvent, { type: 'status' }> => e.type === 'status');
const lastStatus = (events: LabEvent[]) => statusEvents(events).at(-1);

/** The figures a replayed step must reproduce exactly (timings excluded). */
function deterministicFigures(m: StepMetrics) {
  const { seconds: _seconds, tokensPerSecond: _tokensPerSecond, ...rest } = m;
  return rest;
}

beforeAll(async () => {
  await useNodeBackend('wasm');
});

describe('progressEvent and WorkQueue', () => {
  it('extrapolates the ETA from the mean time per finished item', () => {
    expect(progressEvent('pretrain', 2, 10, 1000)).toEqual({ type: 'progress', task: 'pretrain', done: 2, total: 10, etaSeconds: 4 });
    expect(progressEvent('evaluate', 0, 3, 500).etaSeconds).toBeNull();
    expect(progressEvent('evaluate', 3, 3, 900, 'Nmax 2').etaSeconds).toBe(0);
  });

  it('runs jobs one at a time in call order, and a failure does not stop the next job', async () => {
    const queue = new WorkQueue();
    const log: string[] = [];
    const slow = queue.run(async () => {
      log.push('a start');
      await new Promise((resolve) => setTimeout(resolve, 20));
      log.push('a end');
    });
    const failing = queue.run(async () => {
      log.push('b');
      throw new Error('b failed');
    });
    const last = queue.run(async () => log.push('c'));
    await slow;
    await expect(failing).rejects.toThrow('b failed');
    await last;
    expect(log).toEqual(['a start', 'a end', 'b', 'c']);
  });
});

describe('LabSession', () => {
  it('starts a run with its step-0 record, steps once, and stops at the budget', async () => {
    const events: LabEvent[] = [];
    const session = newSession(events);
    await session.startRun('run-a', CONFIG);
    expect(statusEvents(events)[0]).toEqual({ type: 'status', runId: 'run-a', status: 'idle', step: 0 });
    const [initial] = stepEvents(events);
    expect(initial.metrics.step).toBe(0);
    expect(initial.metrics.testAccuracy).toBeGreaterThanOrEqual(0);
    expect(initial.samples).toEqual([]);

    await session.step();
    const first = stepEvents(events)[1];
    expect(first.runId).toBe('run-a');
    expect(first.metrics.step).toBe(1);
    expect(first.metrics.accuracy).not.toBeNull();
    expect(first.samples).toHaveLength(CONFIG.samplesPerStep);
    expect(lastStatus(events)).toEqual({ type: 'status', runId: 'run-a', status: 'paused', step: 1 });

    await session.train();
    expect(stepEvents(events).map((e) => e.metrics.step)).toEqual([0, 1, 2, 3, 4]);
    expect(lastStatus(events)).toEqual({ type: 'status', runId: 'run-a', status: 'finished', step: 4 });
    // A page that still thinks the run short of its budget (another tab trained it on) hears it is finished.
    const statuses = statusEvents(events).length;
    await expect(session.step()).rejects.toThrow('the run has reached its step budget (4 steps): Fork it with more steps to go on');
    expect(statusEvents(events)).toHaveLength(statuses + 1);
    expect(lastStatus(events)).toEqual({ type: 'status', runId: 'run-a', status: 'finished', step: 4 });
    await session.dispose();
  });

  it('pauses between steps when pause arrives during training, and train resumes from there', async () => {
    const events: LabEvent[] = [];
    let pausing: Promise<void> | null = null;
    const session = newSession(events, (event) => {
      // A pause message arriving while step 1 is being reported (as a worker message would: a macrotask).
      if (event.type === 'step' && event.metrics.step === 1 && !pausing) setTimeout(() => (pausing = session.pause()), 0);
    });
    await session.startRun('run-p', { ...CONFIG, steps: 50 });
    await session.train();
    await pausing;
    expect(stepEvents(events).map((e) => e.metrics.step)).toEqual([0, 1]);
    expect(statusEvents(events).map((e) => e.status)).toEqual(['idle', 'training', 'paused']);
    expect(lastStatus(events)?.step).toBe(1);

    await session.step();
    expect(stepEvents(events).at(-1)?.metrics.step).toBe(2);
    await session.dispose();
  });

  it('pauses inside a step: the step is dropped, the run stays at its last step and goes on as a run never paused', async () => {
    const events: LabEvent[] = [];
    let pausing: Promise<void> | null = null;
    // The step's rollouts let messages in before their first token step; inside step 2 (the trainer
    // counts it from its start) that is where the pause arrives.
    const session: LabSession = newSession(events, undefined, async () => {
      if (session.currentStep === 2 && !pausing) pausing = session.pause();
      await macrotask();
    });
    await session.startRun('run-in', CONFIG);
    await session.train();
    await pausing;
    expect(pausing).not.toBeNull();
    expect(stepEvents(events).map((e) => e.metrics.step)).toEqual([0, 1]);
    expect(statusEvents(events).map((e) => [e.status, e.step])).toEqual([['idle', 0], ['training', 0], ['paused', 1]]);
    expect(session.currentStep).toBe(1);
    await session.train();

    const unpausedEvents: LabEvent[] = [];
    const unpaused = newSession(unpausedEvents);
    await unpaused.startRun('run-in', CONFIG);
    await unpaused.train();
    expect(stepEvents(events).map((e) => deterministicFigures(e.metrics))).toEqual(stepEvents(unpausedEvents).map((e) => deterministicFigures(e.metrics)));
    await session.dispose();
    await unpaused.dispose();
  });

  it('pauses a single Step inside its rollouts: no step event, and the next Step is the one dropped', async () => {
    const events: LabEvent[] = [];
    let pausing: Promise<void> | null = null;
    const session: LabSession = newSession(events, undefined, async () => {
      if (!pausing) pausing = session.pause();
      await macrotask();
    });
    await session.startRun('run-step', CONFIG);
    await session.step();
    expect(pausing).not.toBeNull();
    expect(stepEvents(events).map((e) => e.metrics.step)).toEqual([0]);
    expect(lastStatus(events)).toEqual({ type: 'status', runId: 'run-step', status: 'paused', step: 0 });
    await session.step();
    expect(stepEvents(events).map((e) => e.metrics.step)).toEqual([0, 1]);

    const unpausedEvents: LabEvent[] = [];
    const unpaused = newSession(unpausedEvents);
    await unpaused.startRun('run-step', CONFIG);
    await unpaused.step();
    expect(deterministicFigures(stepEvents(events)[1].metrics)).toEqual(deterministicFigures(stepEvents(unpausedEvents)[1].metrics));
    await session.dispose();
    await unpaused.dispose();
  });

  it('steps in slow motion: each stage waits for its Next, the step event comes after the last, with a normal step\'s figures', async () => {
    const events: LabEvent[] = [];
    const session = newSession(events);
    await session.startRun('run-slow', CONFIG);
    const seen: string[] = [];
    let next: () => void = () => undefined;
    const stepping = session.step((stage) => {
      seen.push(stage.stage);
      return new Promise<void>((resolve) => (next = resolve));
    });
    for (const stage of STEP_STAGES) {
      while (seen.at(-1) !== stage) await new Promise((resolve) => setTimeout(resolve, 1));
      // Held at this stage: nothing further happens until Next.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(seen.at(-1)).toBe(stage);
      expect(stepEvents(events).map((e) => e.metrics.step)).toEqual([0]);
      next();
    }
    await stepping;
    expect(seen).toEqual([...STEP_STAGES]);
    const watched = stepEvents(events)[1];
    expect(lastStatus(events)).toEqual({ type: 'status', runId: 'run-slow', status: 'paused', step: 1 });

    const plainEvents: LabEvent[] = [];
    const plain = newSession(plainEvents);
    await plain.startRun('run-plain', CONFIG);
    await plain.step();
    expect(deterministicFigures(watched.metrics)).toEqual(deterministicFigures(stepEvents(plainEvents)[1].metrics));
    expect(watched.samples).toEqual(stepEvents(plainEvents)[1].samples);
    await session.dispose();
    await plain.dispose();
  });

  it('refuses to step or start a second training while training runs', async () => {
    const events: LabEvent[] = [];
    const session = newSession(events);
    await session.startRun('run-busy', { ...CONFIG, steps: 2 });
    const training = session.train();
    await expect(session.step()).rejects.toThrow('training is running; pause it before stepping');
    await expect(session.train()).rejects.toThrow('the worker is busy training; pause it first');
    await training;
    expect(lastStatus(events)?.status).toBe('finished');
    await session.dispose();
  });

  it('resets to the base weights bit-equal and step 0, and replays the same steps', async () => {
    const events: LabEvent[] = [];
    const session = newSession(events);
    await session.startRun('run-r', CONFIG);
    const atStart = await session.saveCheckpoint();
    await session.step();
    await session.step();
    const trained = await session.saveCheckpoint();
    expect(Buffer.from(trained.weights).equals(Buffer.from(atStart.weights))).toBe(false);
    const firstRun = stepEvents(events).slice(0, 3);

    events.length = 0;
    await session.reset();
    expect(lastStatus(events)).toEqual({ type: 'status', runId: 'run-r', status: 'idle', step: 0 });
    expect(session.currentStep).toBe(0);
    const afterReset = await session.saveCheckpoint();
    expect(Buffer.from(afterReset.weights).equals(Buffer.from(atStart.weights))).toBe(true);
    expect((afterReset.manifest as { meta: { step: number } }).meta.step).toBe(0);

    await session.step();
    await session.step();
    const replay = stepEvents(events);
    expect(replay.map((e) => e.metrics.step)).toEqual([0, 1, 2]);
    expect(replay[0].metrics).toEqual(firstRun[0].metrics);
    for (const i of [1, 2]) {
      expect(deterministicFigures(replay[i].metrics)).toEqual(deterministicFigures(firstRun[i].metrics));
      expect(replay[i].samples).toEqual(firstRun[i].samples);
    }
    await session.dispose();
  });

  it('round-trips a checkpoint: a run resumed from it has the same weights and continues the step count', async () => {
    const events: LabEvent[] = [];
    const session = newSession(events);
    await session.startRun('run-c', CONFIG);
    await session.step();
    await session.step();
    const saved = await session.saveCheckpoint();
    expect((saved.manifest as { meta: Record<string, unknown> }).meta).toMatchObject({ kind: 'rl', runId: 'run-c', step: 2 });

    events.length = 0;
    await session.startRun('run-c2', CONFIG, { checkpoint: saved, step: 2 });
    expect(stepEvents(events)).toEqual([]);
    expect(lastStatus(events)).toEqual({ type: 'status', runId: 'run-c2', status: 'idle', step: 2 });
    const reloaded = await session.saveCheckpoint();
    expect(Buffer.from(reloaded.weights).equals(Buffer.from(saved.weights))).toBe(true);
    await session.step();
    expect(stepEvents(events).map((e) => e.metrics.step)).toEqual([3]);

    const truncated = { manifest: saved.manifest, weights: saved.weights.slice(0, 100) };
    await expect(session.startRun('run-bad', CONFIG, { checkpoint: truncated, step: 0 })).rejects.toThrow(
      'checkpoint weights buffer has 100 bytes, too short for weight "wte"',
    );
    expect(session.currentRunId).toBe('run-c2');
    expect(session.currentStep).toBe(3);
    await session.dispose();
  });

  it('continues a run from its checkpoint exactly as a run never stopped, against its start model as KL reference', async () => {
    const events: LabEvent[] = [];
    const session = newSession(events);
    // A start model other than the base (as a cold start is), so the KL reference must be found.
    const startBlob = tinyStartModel();
    const figuresOf = (from: number) => stepEvents(events).filter((e) => e.metrics.step >= from).map((e) => [deterministicFigures(e.metrics), e.samples]);
    const settings = { ...CONFIG, klCoef: 0.05 };

    await session.startRun('straight', settings, { checkpoint: startBlob, step: 0 });
    for (let i = 0; i < 4; i++) await session.step();
    const straight = figuresOf(3);
    const straightWeights = (await session.saveCheckpoint()).weights;

    await session.startRun('stopped', settings, { checkpoint: startBlob, step: 0 });
    await session.step();
    await session.step();
    const saved = await session.saveCheckpoint();
    expect((saved.manifest as { formatVersion: number }).formatVersion).toBe(2);

    events.length = 0;
    expect(await session.startRun('resumed', settings, { checkpoint: saved, step: 2, reference: startBlob })).toEqual([]);
    await session.step();
    await session.step();
    expect(figuresOf(3)).toEqual(straight);
    expect(Buffer.from((await session.saveCheckpoint()).weights).equals(Buffer.from(straightWeights))).toBe(true);

    await expect(session.startRun('wrong-step', settings, { checkpoint: saved, step: 3 })).rejects.toThrow(
      "the checkpoint holds the run's state at step 2, not at step 3",
    );
    // Without its start model the run still loads, against the base, and says so.
    const notices = await session.startRun('lost', settings, { checkpoint: saved, step: 2 });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^the run's start model \(start checkpoint, fingerprint [0-9a-f]{16}\) is not loaded here: its KL reference is now the base model/);
    await session.dispose();
  });

  it('loads a weights-only checkpoint (saved before run state was kept) with a notice that the optimizer restarts', async () => {
    const events: LabEvent[] = [];
    const session = newSession(events);
    await session.startRun('run-w', CONFIG);
    await session.step();
    await session.step();
    const saved = await session.saveCheckpoint();
    const { model, meta } = deserializeCheckpoint(saved.manifest, saved.weights);
    const weightsOnly = serializeCheckpoint(model, meta);
    model.dispose();
    expect(weightsOnly.manifest.formatVersion).toBe(1);

    const notices = await session.startRun('run-w2', CONFIG, { checkpoint: weightsOnly, step: 2 });
    expect(notices).toEqual([
      'the checkpoint at step 2 holds weights only (saved before checkpoints kept the run state): the run continues with a fresh optimizer and fresh random streams',
    ]);
    await session.step();
    expect(session.currentStep).toBe(3);
    await session.dispose();
  });

  it('reports a step that fails before its update and keeps the run at its last step; another run starts', async () => {
    const events: LabEvent[] = [];
    const session = newSession(events);
    // Responses longer than the tiny model's context are refused before the rollout (the step's
    // longest prompt and the cap are named, so the message varies from step to step). Starting
    // from a checkpoint at step 1 skips the step-0 evaluation, which would be refused first.
    const overflowing = { ...CONFIG, maxResponseTokens: 200 };
    await session.startRun('run-o', overflowing, { checkpoint: baseBlob(), step: 1 });
    const failure = await session.step().then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failure).toBeTruthy();
    // Not 'error' at step 2 (the step that never happened, which the lab then saved as the run's state).
    expect(lastStatus(events)).toEqual({ type: 'status', runId: 'run-o', status: 'paused', step: 1 });
    expect(session.currentStep).toBe(1);
    expect(failure).toMatch(/^the model's context \(96 tokens\) cannot hold a \d+-token prompt and an answer of up to 200/);
    await expect(session.train()).rejects.toThrow(/^the model's context \(96 tokens\) cannot hold a \d+-token prompt and an answer of up to 200/);
    expect(statusEvents(events).slice(-2).map((e) => [e.status, e.step])).toEqual([['training', 1], ['paused', 1]]);

    await session.startRun('run-ok', CONFIG);
    await session.step();
    expect(lastStatus(events)).toEqual({ type: 'status', runId: 'run-ok', status: 'paused', step: 1 });
    await session.dispose();
  });

  it('a step that fails after its update moved the weights: the run stays at its last step, and what it saves is that step', async () => {
    const events: LabEvent[] = [];
    const session = newSession(events);
    await session.startRun('run-u', { ...CONFIG, epochs: 2, minibatchSize: 2 });
    await session.step();
    const saved = await session.saveCheckpoint();
    // The second of the step's Adam steps fails as wasm's heap does when an allocation does not fit.
    const applyGradients = tf.AdamOptimizer.prototype.applyGradients;
    let calls = 0;
    const failing = vi.spyOn(tf.AdamOptimizer.prototype, 'applyGradients').mockImplementation(function (this: tf.AdamOptimizer, grads) {
      if (++calls === 2) throw new WebAssembly.RuntimeError('memory access out of bounds');
      applyGradients.call(this, grads);
    });
    await expect(session.step()).rejects.toThrow(/^step 2 ran out of memory \(memory access out of bounds\) .*: lower one of them; the run stays at step 1$/);
    failing.mockRestore();
    expect(calls).toBe(2);
    expect(lastStatus(events)).toEqual({ type: 'status', runId: 'run-u', status: 'paused', step: 1 });
    const after = await session.saveCheckpoint();
    expect(after.manifest).toEqual(saved.manifest);
    expect(new Uint8Array(after.weights)).toEqual(new Uint8Array(saved.weights));
    await session.dispose();
  });

  it('evaluates the current weights at each inference Nmax with progress', async () => {
    const events: LabEvent[] = [];
    const session = newSession(events);
    await session.startRun('run-e', CONFIG);
    const row = await session.evaluate([0, 2]);
    expect(row.runId).toBe('run-e');
    expect(Object.keys(row.accuracyByNmax).map(Number)).toEqual([0, 2]);
    for (const accuracy of Object.values(row.accuracyByNmax)) expect(accuracy).toBeGreaterThanOrEqual(0);
    // The run's own Nmax (2) gives the step-0 figure again: same weights, same greedy decoding.
    expect(row.accuracyByNmax[2]).toBe(stepEvents(events)[0].metrics.testAccuracy);
    const progress = events.filter((e) => e.type === 'progress');
    expect(progress.map((e) => (e.type === 'progress' ? [e.task, e.done, e.total] : null))).toEqual([
      ['evaluate', 0, 2],
      ['evaluate', 1, 2],
      ['evaluate', 2, 2],
    ]);
    await expect(session.evaluate([1, 17])).rejects.toThrow('evaluate needs a list of whole Nmax values from 0 to 16, got [1,17]');
    await expect(session.evaluate([])).rejects.toThrow('evaluate needs a list');
    await session.dispose();
  });

  it("answers a question with the run's model, a checkpoint's or the base's, as it is written, without touching the run; not while training", async () => {
    const events: LabEvent[] = [];
    const session = newSession(events);
    await session.startRun('run-q', CONFIG);
    const atStart = await session.saveCheckpoint();
    await session.step();
    const ask = (model: AskedModel, question = 'what is 6*7?') => ({ question, config: CONFIG, greedy: false, model });
    const written: ModelAnswer[] = [];
    const byRun = await session.askModel(ask({ kind: 'run', runId: 'run-q' }), (answer) => written.push(answer));
    expect(byRun.prompt).toBe('Q: what is 6*7?\nA:');
    expect(byRun.done).toBe(true);
    expect(written.length).toBeGreaterThan(1);
    expect(written.at(-1)).toEqual(byRun);
    // Sampled from the config's seed: asked again, the same answer.
    expect(await session.askModel(ask({ kind: 'run', runId: 'run-q' }))).toEqual(byRun);
    // The start checkpoint is the base model; loading it for the question leaks no tensor.
    const tensors = tf.memory().numTensors;
    expect(await session.askModel(ask({ kind: 'checkpoint', checkpoint: atStart }))).toEqual(await session.askModel(ask({ kind: 'base' })));
    expect(tf.memory().numTensors).toBe(tensors);
    await expect(session.askModel(ask({ kind: 'run', runId: 'run-other' }))).rejects.toThrow('run run-other is not the one loaded (run-q)');
    await expect(session.askModel(ask({ kind: 'base' }, '  '))).rejects.toThrow('type a question first');

    // The run's next step is the one of a run never asked anything.
    await session.step();
    const asked = stepEvents(events).at(-1)!;
    const quiet: LabEvent[] = [];
    const unasked = newSession(quiet);
    await unasked.startRun('run-q', CONFIG);
    await unasked.step();
    await unasked.step();
    const never = stepEvents(quiet).at(-1)!;
    expect(deterministicFigures(asked.metrics)).toEqual(deterministicFigures(never.metrics));
    expect(asked.samples).toEqual(never.samples);
    await unasked.dispose();

    // While training: refused.
    let refused: Promise<unknown> | null = null;
    const training = newSession([], (event) => {
      if (event.type === 'step' && event.metrics.step === 1 && !refused) {
        refused = training.askModel(ask({ kind: 'base' })).then(
          () => 'answered',
          (error: Error) => error.message,
        );
        setTimeout(() => void training.pause(), 0);
      }
    });
    await training.startRun('run-t', { ...CONFIG, steps: 50 });
    await training.train();
    expect(await refused).toBe('the model is training: pause it before asking it a question');
    await training.dispose();
    await session.dispose();
  });

  it('pretrains a fresh model with a step and a progress event per step, and pause stops it early', async () => {
    const events: LabEvent[] = [];
    const session = newSession(events);
    const blob = await session.pretrain({ steps: 3, seed: 5, toolPrior: 0.5 });
    const losses = events.filter((e) => e.type === 'pretrainStep');
    expect(losses.map((e) => (e.type === 'pretrainStep' ? e.step : -1))).toEqual([1, 2, 3]);
    for (const e of losses) if (e.type === 'pretrainStep') expect(e.loss).toBeGreaterThan(0);
    const progress = events.filter((e): e is Extract<LabEvent, { type: 'progress' }> => e.type === 'progress');
    expect(progress.map((e) => [e.task, e.done, e.total])).toEqual([
      ['pretrain', 0, 3],
      ['pretrain', 1, 3],
      ['pretrain', 2, 3],
      ['pretrain', 3, 3],
    ]);
    expect(progress[0].etaSeconds).toBeNull();
    expect(progress[3].etaSeconds).toBe(0);
    const { model, meta } = deserializeCheckpoint(blob.manifest, blob.weights);
    expect(model.config).toEqual(TINY);
    expect(meta).toMatchObject({ kind: 'base', stepsCompleted: 3, pretrain: { seed: 5, steps: 3, recipe: { toolPrior: 0.5 } } });
    model.dispose();

    await expect(session.pretrain({ steps: 0, seed: -1, toolPrior: 2 })).rejects.toThrow(
      'invalid pretrain options: steps must be a whole number from 1 to 100000; seed must be a whole number from 0 to 2147483647; toolPrior must be a number from 0 to 1',
    );

    events.length = 0;
    const long = session.pretrain({ steps: 200, seed: 5, toolPrior: 0.5 });
    await session.pause();
    const stopped = await long;
    const stepsDone = (stopped.manifest as { meta: { stepsCompleted: number } }).meta.stepsCompleted;
    expect(stepsDone).toBeLessThan(200);
    expect(events.filter((e) => e.type === 'pretrainStep')).toHaveLength(stepsDone);
    await session.dispose();
  });

  it('keeps the tensor count flat over steps, reset, a second run, evaluation and pretraining', async () => {
    const before = tf.memory().numTensors;
    const session = newSession([]);
    const withBase = tf.memory().numTensors;
    await session.startRun('run-m', CONFIG);
    const runOpen = tf.memory().numTensors;
    await session.step(); // Adam's moments appear at the first update
    const afterFirstStep = tf.memory().numTensors;
    await session.step();
    await session.step();
    expect(tf.memory().numTensors).toBe(afterFirstStep);
    await session.reset();
    expect(tf.memory().numTensors).toBe(runOpen);
    await session.step();
    expect(tf.memory().numTensors).toBe(afterFirstStep);
    await session.evaluate([1]);
    await session.saveCheckpoint();
    expect(tf.memory().numTensors).toBe(afterFirstStep);
    await session.startRun('run-m2', { ...CONFIG, algorithm: 'grpo', seed: 3 });
    expect(tf.memory().numTensors).toBe(runOpen);
    await session.pretrain({ steps: 2, seed: 1, toolPrior: 0.1 });
    expect(tf.memory().numTensors).toBe(runOpen);
    await session.dispose();
    expect(withBase).toBeGreaterThan(before);
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('createTrainerApi', () => {
  const info: BackendInfo = { name: 'wasm', adapter: null, probeMs: { wasm: 1 }, reason: 'test' };

  function api(events: LabEvent[], choices: string[] = []) {
    const blob = baseBlob();
    const worker = createTrainerApi({
      chooseBackend: async (choice) => {
        choices.push(choice);
        return info;
      },
      loadCheckpoint: async (url) => {
        if (url !== '/models/base/model.json') throw new Error(`no checkpoint at ${url}`);
        return blob;
      },
      createSandbox: async () => new ArithmeticSandbox(),
      pretrainShape: TINY_PRETRAIN,
    });
    return { worker, init: () => worker.init({ backend: 'auto', baseModelUrl: '/models/base/model.json' }, (e) => events.push(e)) };
  }

  it('refuses commands before init, and a bad start with its message and an error event', async () => {
    const events: LabEvent[] = [];
    const choices: string[] = [];
    const { worker, init } = api(events, choices);
    await expect(worker.step()).rejects.toThrow('the trainer worker is not initialised: call init first');

    expect(await init()).toEqual(info);
    expect(choices).toEqual(['auto']);
    expect(events.slice(0, 2)).toEqual([
      { type: 'backend', info },
      { type: 'status', runId: null, status: 'idle', step: 0 },
    ]);

    events.length = 0;
    // The config itself is checked where it enters the page (validKnobs, runChecks), not again here.
    const message = `a run can start from a checkpoint at a whole step from 0 to ${NUMERIC_BOUNDS.steps[1]}, got -1`;
    await expect(worker.startRun('run-x', CONFIG, { checkpoint: baseBlob(), step: -1 })).rejects.toThrow(message);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(events).toEqual([{ type: 'error', message }]);

    // The worker is still usable after refusing the input.
    await worker.startRun('run-ok', CONFIG);
    await worker.step();
    expect(events.filter((e) => e.type === 'step').map((e) => (e.type === 'step' ? e.metrics.step : -1))).toEqual([0, 1]);
  });

  it("shares a run's updates with the gradient helpers it starts for the chosen backend, and says so in the backend's reason; helpers that cannot start leave one thread, and it says why", async () => {
    const threads = await startGradientThreads(1, 'wasm');
    const asked: string[] = [];
    let chunks = 0;
    const counting: GradientHelper = {
      chunkGradients: (model, sent, config) => {
        chunks += sent.length;
        return threads.helpers[0].chunkGradients(model, sent, config);
      },
    };
    const withHelpers = (start: (backend: string) => Promise<GradientHelperSet>) =>
      createTrainerApi({ chooseBackend: async () => info, loadCheckpoint: async () => baseBlob(), createSandbox: async () => new ArithmeticSandbox(), startGradientHelpers: start });
    const init = { backend: 'auto' as const, baseModelUrl: '/models/base/model.json' };
    // Rows of many widths (8 prompts of different lengths), cut into more than one chunk per minibatch.
    const wide = { ...CONFIG, promptsPerStep: 8, minibatchSize: 16 };
    try {
      const shared = withHelpers(async (backend) => {
        asked.push(backend);
        return { helpers: [counting], close: () => threads.close() };
      });
      expect((await shared.init(init, () => undefined)).reason).toBe('test; the update shares its work with 1 gradient helper worker');
      expect(asked).toEqual(['wasm']);
      await shared.startRun('run-h', wide);
      await shared.step();
      expect(chunks).toBeGreaterThan(0);

      const alone = withHelpers(async () => {
        throw new Error('no workers here');
      });
      expect((await alone.init(init, () => undefined)).reason).toBe('test; the update runs on one thread: no workers here');
      await alone.startRun('run-1', wide);
      await alone.step();
    } finally {
      await threads.close();
    }
  }, 60_000);

  it('rejects an unknown backend choice and a missing base model with clear messages, and can init again', async () => {
    const events: LabEvent[] = [];
    const { worker, init } = api(events);
    await expect(worker.init({ backend: 'tpu' as never, baseModelUrl: '/m' }, (e) => events.push(e))).rejects.toThrow(
      'backend must be one of auto, webgpu, webgl, wasm, cpu, got "tpu"',
    );
    await expect(worker.init({ backend: 'wasm', baseModelUrl: '/nowhere/model.json' }, (e) => events.push(e))).rejects.toThrow(
      'no checkpoint at /nowhere/model.json',
    );
    await init();
    const afterFirstInit = tf.memory().numTensors;
    await init(); // disposes the first session's base model before loading again
    expect(tf.memory().numTensors).toBe(afterFirstInit);
    await worker.startRun('run-2', CONFIG);
    await worker.step();
  });
});
