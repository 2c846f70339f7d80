import { describe, expect, it } from 'vitest';
import { SAMPLES_KEPT } from '../src/core/archive/runChecks';
import { makeRun } from '../src/ui/state/labRun';
import { choosePreset, createLabStore, notify, putRun, reduceLabEvent, setKnob, type LabState, type LabStore } from '../src/ui/state/labStore';
import { LAB_PRESETS } from '../src/ui/state/presets';
import { defaultUrlState } from '../src/ui/state/urlState';
import type { LabEvent } from '../src/trainerWorker/protocol';
import { latestFigures } from '../src/ui/panels/BackendBadge';
import { metricsAt, sampleAt } from './uiFixtures';

function storeWithRun(): LabStore {
  const store = createLabStore(defaultUrlState());
  putRun(store, makeRun({ id: 'r1', name: 'run one', preset: 'quick', config: LAB_PRESETS.quick.config, createdAt: 1 }));
  return store;
}

function send(store: LabStore, event: LabEvent): void {
  store.setState((s) => reduceLabEvent(s, event));
}

describe('lab store and LabEvents', () => {
  it('appends step metrics as columns and keeps the objects for export', () => {
    const store = storeWithRun();
    send(store, { type: 'step', runId: 'r1', metrics: metricsAt(0, { testAccuracy: 0.25 }), samples: [] });
    send(store, {
      type: 'step',
      runId: 'r1',
      metrics: metricsAt(1, { accuracy: 0.5, codeCallFrequency: 0.125, seconds: { generate: 2, execute: 0.5, update: 1 } }),
      samples: [],
    });
    const run = store.getState().runs.r1;
    expect(run.step).toBe(1);
    expect(run.columns.step).toEqual([0, 1]);
    expect(run.columns.accuracy).toEqual([null, 0.5]);
    expect(run.columns.testAccuracy).toEqual([0.25, null]);
    expect(run.columns.codeCallFrequency).toEqual([null, 0.125]);
    expect(run.columns.generateSeconds).toEqual([null, 2]);
    expect(run.columns.updateSeconds).toEqual([null, 1]);
    expect(run.revision).toBe(2);
  });

  it('gives a changed run a new object so subscribers notice, and leaves other runs alone', () => {
    const store = storeWithRun();
    putRun(store, makeRun({ id: 'r2', name: 'other', preset: 'quick', config: LAB_PRESETS.quick.config, createdAt: 2 }));
    const before = store.getState().runs;
    send(store, { type: 'step', runId: 'r1', metrics: metricsAt(0), samples: [] });
    const after = store.getState().runs;
    expect(after.r1).not.toBe(before.r1);
    expect(after.r2).toBe(before.r2);
  });

  it("leaves the previous state as it was but the stepped run's columns, which grow and shrink in place under a new revision", () => {
    const store = storeWithRun();
    putRun(store, makeRun({ id: 'r2', name: 'other', preset: 'quick', config: LAB_PRESETS.quick.config, createdAt: 2, history: [metricsAt(0), metricsAt(1)] }));
    for (const step of [0, 1, 2]) send(store, { type: 'step', runId: 'r1', metrics: metricsAt(step, { accuracy: step / 10 }), samples: [sampleAt(step, 1)] });
    const withoutColumns = (state: LabState) => ({ ...state, runs: Object.fromEntries(Object.entries(state.runs).map(([id, run]) => [id, { ...run, columns: null }])) });
    const before = store.getState();
    const snapshot = structuredClone(before);
    const columns = before.runs.r1.columns;
    const otherRevision = before.runs.r2.columns.revision;
    const revisions = [columns.revision];

    send(store, { type: 'step', runId: 'r1', metrics: metricsAt(3, { accuracy: 0.3 }), samples: [sampleAt(3, 0)] });
    expect(withoutColumns(before)).toEqual(withoutColumns(snapshot));
    expect(store.getState().runs.r1.columns).toBe(columns);
    expect(columns.step).toEqual([0, 1, 2, 3]);
    revisions.push(columns.revision);

    // The worker went back to step 1 (a reset, a continued checkpoint): cut, then appended.
    const beforeReset = store.getState();
    const resetSnapshot = structuredClone(beforeReset);
    send(store, { type: 'step', runId: 'r1', metrics: metricsAt(1, { accuracy: 0.5 }), samples: [] });
    expect(withoutColumns(beforeReset)).toEqual(withoutColumns(resetSnapshot));
    expect(columns.step).toEqual([0, 1]);
    expect(columns.accuracy).toEqual([0, 0.5]);
    revisions.push(columns.revision);

    expect(new Set(revisions).size, 'a new revision at every change').toBe(3);
    expect(store.getState().runs.r2.columns.revision).toBe(otherRevision);
  });

  it('replaces what was recorded from a step the worker goes back to (reset, continue)', () => {
    const store = storeWithRun();
    for (const step of [0, 1, 2, 3]) send(store, { type: 'step', runId: 'r1', metrics: metricsAt(step, { accuracy: step / 10 }), samples: [] });
    send(store, { type: 'step', runId: 'r1', metrics: metricsAt(2, { accuracy: 0.9 }), samples: [] });
    const run = store.getState().runs.r1;
    expect(run.columns.step).toEqual([0, 1, 2]);
    expect(run.columns.accuracy).toEqual([0, 0.1, 0.9]);
    expect(run.step).toBe(2);
  });

  it('keeps the newest samples first, at most SAMPLES_KEPT', () => {
    const store = storeWithRun();
    const batch = (step: number) => Array.from({ length: 20 }, (_, i) => ({ ...sampleAt(step, i % 2), expected: i }));
    for (const step of [1, 2, 3]) send(store, { type: 'step', runId: 'r1', metrics: metricsAt(step), samples: batch(step) });
    const samples = store.getState().runs.r1.samples;
    expect(samples).toHaveLength(SAMPLES_KEPT);
    expect(samples[0]).toMatchObject({ step: 3, expected: 19 });
    expect(samples[19]).toMatchObject({ step: 3, expected: 0 });
    expect(samples[20]).toMatchObject({ step: 2, expected: 19 });
    expect(samples[SAMPLES_KEPT - 1]).toMatchObject({ step: 1, expected: 12 });
  });

  it('takes status, backend, progress and pretraining events', () => {
    const store = storeWithRun();
    send(store, { type: 'status', runId: 'r1', status: 'training', step: 4 });
    expect(store.getState().runs.r1).toMatchObject({ status: 'training', step: 4 });
    const info = { name: 'wasm' as const, adapter: null, probeMs: { wasm: 3, cpu: 40 }, reason: 'fastest' };
    send(store, { type: 'backend', info });
    expect(store.getState().backendInfo).toEqual(info);
    send(store, { type: 'progress', task: 'pretrain', done: 3, total: 10, etaSeconds: 14, detail: 'loss 2.1' });
    expect(store.getState().progress.pretrain).toEqual({ done: 3, total: 10, etaSeconds: 14, detail: 'loss 2.1' });
    send(store, { type: 'pretrainStep', step: 1, loss: 4.5 });
    send(store, { type: 'pretrainStep', step: 2, loss: 3.25 });
    expect(store.getState().pretrainLoss).toMatchObject({ step: [1, 2], loss: [4.5, 3.25], revision: 2 });
  });

  it("gives the badge only a step timed on the backend it names: none after a switch until a step runs there", () => {
    const store = storeWithRun();
    store.setState({ loadedRunId: 'r1' });
    const wasm = { name: 'wasm' as const, adapter: null, probeMs: {}, reason: 'fastest' };
    send(store, { type: 'backend', info: wasm });
    const timed = (step: number, tokensPerSecond: number) =>
      send(store, { type: 'step', runId: 'r1', metrics: metricsAt(step, { tokensPerSecond, seconds: { generate: 1, execute: 0.5, update: 2 } }), samples: [] });
    timed(1, 1449);
    expect(latestFigures(store.getState())).toEqual({ tokensPerSecond: 1449, generate: 1, execute: 0.5, update: 2 });
    // A switch to the CPU: wasm's 1449 tok/s is not the CPU's.
    send(store, { type: 'backend', info: { ...wasm, name: 'cpu' } });
    expect(latestFigures(store.getState())).toBeNull();
    timed(2, 90);
    expect(latestFigures(store.getState())?.tokensPerSecond).toBe(90);
    // Another run shown: its steps were timed elsewhere.
    putRun(store, makeRun({ id: 'r2', name: 'run two', preset: 'quick', config: LAB_PRESETS.quick.config, createdAt: 2, history: [metricsAt(1, { tokensPerSecond: 7, seconds: { generate: 1, execute: 1, update: 1 } })] }));
    store.setState({ loadedRunId: null, selectedRunId: 'r2' });
    expect(latestFigures(store.getState())).toBeNull();
  });

  it('turns worker errors into notices, the latest four kept', () => {
    const store = storeWithRun();
    send(store, { type: 'status', runId: 'r1', status: 'error', step: 2, message: 'sandbox died' });
    expect(store.getState().runs.r1.status).toBe('error');
    for (const n of [1, 2, 3, 4]) send(store, { type: 'error', message: `problem ${n}` });
    expect(store.getState().notices.map((n) => n.text)).toEqual(['problem 1', 'problem 2', 'problem 3', 'problem 4']);
    expect(store.getState().notices.map((n) => n.id)).toEqual([2, 3, 4, 5]);
  });

  it('shows a failure reported twice (event and rejected call) once, keeping the longer text', async () => {
    const store = storeWithRun();
    send(store, { type: 'error', message: 'no WebGPU adapter' });
    notify(store, 'error', 'the trainer could not start: no WebGPU adapter');
    send(store, { type: 'error', message: 'no WebGPU adapter' });
    expect(store.getState().notices.map((n) => n.text)).toEqual(['the trainer could not start: no WebGPU adapter']);
    notify(store, 'info', 'no WebGPU adapter');
    expect(store.getState().notices).toHaveLength(2);
  });

  it('ignores events for runs it does not know', () => {
    const store = storeWithRun();
    const before = store.getState();
    send(store, { type: 'step', runId: 'ghost', metrics: metricsAt(1), samples: [] });
    send(store, { type: 'status', runId: 'ghost', status: 'training', step: 1 });
    expect(store.getState().runs).toBe(before.runs);
  });

  it('sets knobs and presets without touching the preset definitions', () => {
    const store = createLabStore(defaultUrlState());
    setKnob(store, 'nmax', 5);
    expect(store.getState().config.nmax).toBe(5);
    choosePreset(store, 'sweep');
    expect(store.getState().preset).toBe('sweep');
    expect(store.getState().config).toEqual(LAB_PRESETS.sweep.config);
    expect(store.getState().sweepNmax).toEqual([0, 1, 2, 4]);
    setKnob(store, 'seed', 3);
    expect(LAB_PRESETS.sweep.config.seed).toBe(1);
  });
});
