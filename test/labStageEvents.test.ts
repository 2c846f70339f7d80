/**
 * The loop diagram's 'stage' events (issue 26): the trainer says which stage a step is in as it moves
 * (Python while an answer's code runs), the session sends the changes as 'stage' events, at most one
 * per STAGE_EVENT_MS, each step's before its 'step' event and none after it, and the worker API passes
 * them to the page during Train and Step.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PRESETS } from '../src/core/experiment';
import { GPT } from '../src/core/model/gpt';
import { Trainer } from '../src/core/rl/trainer';
import type { StepStageName } from '../src/core/rl/stepStages';
import { serializeCheckpoint } from '../src/core/run/checkpoint';
import type { PythonSandbox, RunResult } from '../src/core/sandbox/protocol';
import type { LabEvent } from '../src/trainerWorker/protocol';
import { STAGE_EVENT_MS, StageEvents } from '../src/trainerWorker/stageEvents';
import { createTrainerApi } from '../src/trainerWorker/trainerApi';
import { loadCheckpointDir } from '../src/node/checkpointFiles';
import { useNodeBackend } from '../src/node/tfBackend';
import { printsOne, TINY_MODEL, tinyTrainerConfig } from './tinyTrainer';

type StageEvent = Extract<LabEvent, { type: 'stage' }>;

/** A stage's place in a step; the answers' code runs while they are written, so the two share one. */
const STAGE_ORDER: Record<StepStageName, number> = { rollouts: 0, python: 0, rewards: 1, advantages: 2, update: 3 };

beforeAll(async () => {
  await useNodeBackend('wasm');
});

afterEach(() => {
  vi.useRealTimers();
});

describe('StageEvents', () => {
  it('sends a change at once, then at most one per STAGE_EVENT_MS, the newest stage when that time is up', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const sent: { at: number; stage: StepStageName; latest: StepStageName }[] = [];
    let latest: StepStageName = 'rollouts';
    const events = new StageEvents((stage) => sent.push({ at: performance.now(), stage, latest }));
    const report = (stage: StepStageName) => {
      latest = stage;
      events.report(stage);
    };
    report('rollouts');
    expect(sent).toEqual([{ at: 0, stage: 'rollouts', latest: 'rollouts' }]);
    // A second of 10 ms token steps, code running at every third: 66 changes of stage.
    for (let t = 1; t <= 100; t++) {
      vi.advanceTimersByTime(10);
      report(t % 3 === 0 ? 'python' : 'rollouts');
    }
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(sent.length).toBeLessThanOrEqual(1 + Math.floor(1000 / STAGE_EVENT_MS));
    for (let i = 1; i < sent.length; i++) {
      expect(sent[i].at - sent[i - 1].at).toBeGreaterThanOrEqual(STAGE_EVENT_MS);
      expect(sent[i].stage).not.toBe(sent[i - 1].stage);
    }
    // Each sent stage is the one the step was in then.
    for (const { stage, latest: then } of sent) expect(stage).toBe(then);

    // The stages after the answers follow each other within a millisecond: the reward goes out at
    // once (the last send was long enough ago), the update when the time is up; advantages not at all.
    vi.advanceTimersByTime(STAGE_EVENT_MS * 2);
    sent.length = 0;
    report('rewards');
    report('advantages');
    report('update');
    vi.advanceTimersByTime(STAGE_EVENT_MS * 3);
    expect(sent.map(({ stage }) => stage)).toEqual(['rewards', 'update']);
    expect(sent[1].at - sent[0].at).toBe(STAGE_EVENT_MS);
  });

  it('flush sends the newest stage at once; stop drops it, and nothing goes out after', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const sent: StepStageName[] = [];
    const flushed = new StageEvents((stage) => sent.push(stage));
    flushed.report('rollouts');
    flushed.report('rewards');
    flushed.report('update');
    flushed.flush();
    expect(sent).toEqual(['rollouts', 'update']);
    vi.advanceTimersByTime(STAGE_EVENT_MS * 2);
    expect(sent).toEqual(['rollouts', 'update']);

    sent.length = 0;
    const stopped = new StageEvents((stage) => sent.push(stage));
    stopped.report('rollouts');
    stopped.report('python');
    stopped.stop();
    vi.advanceTimersByTime(STAGE_EVENT_MS * 2);
    stopped.flush();
    expect(sent).toEqual(['rollouts']);
  });
});

/** Runs each call as the real sandbox would, only slower (a heavy computation): its stage can be seen. */
class SlowSandbox implements PythonSandbox {
  async run(): Promise<RunResult> {
    await new Promise((resolve) => setTimeout(resolve, 30));
    return { ok: true, stdout: '42\n', stderr: '', timedOut: false, truncated: false, durationMs: 30 };
  }

  async close(): Promise<void> {}
}

describe("the trainer's stage listener", () => {
  it('hears the answers being written, Python while their code runs, then the reward, the advantages and the update, in that order', async () => {
    // The cold-start model writes a <code> block in nearly every answer (its fine-tuning traces do).
    const { model } = await loadCheckpointDir('public/models/coldstart');
    const config = { ...PRESETS.classroom, format: 'retool' as const, seed: 3, promptsPerStep: 2, groupSize: 2, minibatchSize: 4, maxResponseTokens: 160, filterLow: 0, filterHigh: 1, testEvery: 1000 };
    const trainer = new Trainer(model, config, new SlowSandbox());
    const heard: StepStageName[] = [];
    const { metrics } = await trainer.trainStep(undefined, undefined, (stage) => heard.push(stage));
    expect(metrics.codeCallFrequency).toBeGreaterThan(0);
    // The stage at each change: writing and Python alternate while the answers are written.
    const changes = heard.filter((stage, i) => stage !== heard[i - 1]);
    expect(changes[0]).toBe('rollouts');
    expect(changes).toContain('python');
    expect(changes.slice(-3)).toEqual(['rewards', 'advantages', 'update']);
    expect(changes.slice(0, -3).every((stage) => stage === 'rollouts' || stage === 'python')).toBe(true);
    trainer.dispose();
    model.dispose();
  });
});

describe("the worker's 'stage' events", () => {
  // Room for the held-out questions (up to 76 tokens) and 12-token answers: the run's step 0 is evaluated on them.
  const MODEL = { ...TINY_MODEL, contextLength: 96 };
  const CONFIG = tinyTrainerConfig({ maxResponseTokens: 12 });

  function trainerApi(events: LabEvent[]) {
    const model = GPT.init(MODEL, 1);
    const blob = serializeCheckpoint(model, { kind: 'test-base' });
    model.dispose();
    const api = createTrainerApi({
      chooseBackend: async () => ({ name: 'wasm', adapter: null, probeMs: { wasm: 1 }, reason: 'test' }),
      loadCheckpoint: async () => blob,
      createSandbox: async () => printsOne,
    });
    const arrivals = new Map<LabEvent, number>();
    const init = () =>
      api.init({ backend: 'wasm', baseModelUrl: '/models/base/' }, (event) => {
        arrivals.set(event, performance.now());
        events.push(event);
      });
    return { api, init, arrivals };
  }

  /** Checks one step's stage events: its number, between the previous step's event and its own, in order, throttled. */
  function expectStepStages(events: LabEvent[], arrivals: Map<LabEvent, number>, runId: string, step: number): void {
    const stepAt = (n: number) => events.findIndex((e) => e.type === 'step' && e.runId === runId && e.metrics.step === n);
    const own = events.filter((e): e is StageEvent => e.type === 'stage' && e.step === step);
    expect(own.length, `step ${step} sent stage events`).toBeGreaterThan(0);
    for (const event of own) {
      expect(event.runId).toBe(runId);
      expect(events.indexOf(event)).toBeGreaterThan(stepAt(step - 1));
      expect(events.indexOf(event)).toBeLessThan(stepAt(step));
    }
    expect(own[0].stage).toBe('rollouts');
    // Every group is kept, so every step updates; the last stage goes out as the step ends.
    expect(own.at(-1)?.stage).toBe('update');
    const order = own.map((e) => STAGE_ORDER[e.stage]);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // At most one per STAGE_EVENT_MS, but for the step's last (sent as it ends); a timer may fire a millisecond early.
    for (let i = 1; i < own.length - 1; i++) expect(arrivals.get(own[i])! - arrivals.get(own[i - 1])!).toBeGreaterThanOrEqual(STAGE_EVENT_MS - 2);
  }

  it('Train and Step send each step its stages, before its step event; nothing after the run stops', async () => {
    const events: LabEvent[] = [];
    const { api, init, arrivals } = trainerApi(events);
    await init();
    await api.startRun('run-s', { ...CONFIG, steps: 3 });
    await api.step();
    await api.train();
    expect(events.filter((e) => e.type === 'step').map((e) => (e.type === 'step' ? e.metrics.step : -1))).toEqual([0, 1, 2, 3]);
    for (const step of [1, 2, 3]) expectStepStages(events, arrivals, 'run-s', step);
    const count = events.length;
    await new Promise((resolve) => setTimeout(resolve, STAGE_EVENT_MS * 2));
    expect(events.length, 'no stage event after the run finished').toBe(count);
  });

  it('a step stopped by Pause sends no stage after its paused status', async () => {
    const events: LabEvent[] = [];
    const { api, init } = trainerApi(events);
    await init();
    await api.startRun('run-p', { ...CONFIG, steps: 50 });
    const training = api.train();
    // Pause as soon as step 2 is under way.
    while (!events.some((e) => e.type === 'stage' && e.step === 2)) await new Promise((resolve) => setTimeout(resolve, 1));
    await api.pause();
    await training;
    await new Promise((resolve) => setTimeout(resolve, STAGE_EVENT_MS * 2));
    const paused = events.findIndex((e) => e.type === 'status' && e.status === 'paused');
    expect(paused).toBeGreaterThan(0);
    expect(events.slice(paused + 1).filter((e) => e.type === 'stage')).toEqual([]);
  });
});
