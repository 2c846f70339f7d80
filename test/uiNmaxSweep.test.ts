import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../src/core/experiment';
import { LabController } from '../src/ui/controller/labController';
import { queueSweep, runSweep, type SweepHost } from '../src/ui/controller/nmaxSweep';
import { openRunDatabase } from '../src/ui/db/runDatabase';
import { choosePreset, createLabStore, patchRun, putRun, reduceLabEvent, setKnob, type Progress } from '../src/ui/state/labStore';
import { LAB_PRESETS } from '../src/ui/state/presets';
import { copyConfig, defaultUrlState } from '../src/ui/state/urlState';
import { fakeConnector } from './uiFakeTrainer';
import { metricsAt } from './uiFixtures';

/** A sweep host whose runs take 10 s a step and 30 s an evaluation on a clock the test keeps. */
function timedSweep(nmaxValues: number[], steps: number) {
  const initial = defaultUrlState();
  initial.config = { ...copyConfig(LAB_PRESETS.quick.config), steps };
  initial.sweepNmax = nmaxValues;
  const store = createLabStore(initial);
  let clock = 1_000_000;
  const host: SweepHost = {
    store,
    now: () => clock,
    ready: async () => true,
    knobs: () => store.getState().config,
    addRun: (run) => putRun(store, run),
    train: async () => {
      const runId = store.getState().selectedRunId!;
      for (let step = 1; step <= steps; step++) {
        clock += 10_000;
        store.setState((s) => reduceLabEvent(s, { type: 'step', runId, metrics: metricsAt(step, { accuracy: 0.5 }), samples: [] }));
      }
      patchRun(store, runId, { status: 'finished' });
    },
    evaluateRun: async (runId) => {
      clock += 30_000;
      patchRun(store, runId, { evaluation: { 0: 0.5 } });
    },
    lanes: () => 1,
    openArmWorker: async () => null,
    pauseRequested: () => false,
  };
  const shown: Progress[] = [];
  store.subscribe((s, before) => {
    if (s.progress.sweep && s.progress.sweep !== before.progress.sweep) shown.push(s.progress.sweep);
  });
  return { store, host, shown };
}

describe('the sweep’s time estimate', () => {
  it('is live from the first step: steps left at the rate so far, plus the evaluations left at their mean time', async () => {
    const { host, shown } = timedSweep([0, 2], 3);
    expect(queueSweep(host)).toBe(true);
    await runSweep(host);
    // Arm 1: 10 s a step, 5, 4, 3 steps left (no evaluation timed yet). Arm 2 starts after a 30 s
    // evaluation: 3 steps and 1 evaluation left, 30 + 30 s; then 20 + 30, 10 + 30, 0 + 30; done.
    expect(shown.map((p) => p.etaSeconds)).toEqual([null, 50, 40, 30, 60, 50, 40, 30, 0]);
    expect(shown.map((p) => p.done)).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2]);
    expect(shown[1].detail).toBe('training Nmax 0 · step 1 of 6 in all');
    expect(shown[5].detail).toBe('training Nmax 2 · step 4 of 6 in all');
    expect(shown.at(-1)).toEqual({ done: 2, total: 2, etaSeconds: 0, detail: 'done' });
  });

  it('a resumed sweep counts its rate from the steps it trains, not those trained before', async () => {
    const { store, host, shown } = timedSweep([0, 2], 3);
    queueSweep(host);
    const [first] = store.getState().sweep!.runIds;
    for (let step = 1; step <= 3; step++) store.setState((s) => reduceLabEvent(s, { type: 'step', runId: first, metrics: metricsAt(step), samples: [] }));
    patchRun(store, first, { status: 'finished', evaluation: { 0: 0.4 } });
    store.setState((s) => ({ sweep: { ...s.sweep!, position: 1 } }));
    await runSweep(host);
    expect(shown.map((p) => p.etaSeconds)).toEqual([null, 20, 10, 0, 0]);
  });
});

describe('the ablation preset', () => {
  it('Train runs it as a sweep: one run per Nmax 0, 1, 2, 4, 8 with the ablation knobs, each evaluated', async () => {
    const db = await openRunDatabase('ui-nmax-sweep-ablation');
    const store = createLabStore(defaultUrlState());
    const fake = fakeConnector();
    let clock = 1000;
    const controller = new LabController({ store, connect: fake.connect, db, baseModelUrl: '/models/base/', now: () => clock++ });
    await controller.start(false);
    choosePreset(store, 'ablation');
    expect(store.getState().sweepNmax).toEqual([0, 1, 2, 4, 8]);
    setKnob(store, 'steps', 1);
    await controller.train();
    const sweep = store.getState().sweep!;
    const runs = sweep.runIds.map((id) => store.getState().runs[id]);
    expect(runs.map((r) => r.config.nmax)).toEqual([0, 1, 2, 4, 8]);
    expect(runs.map((r) => ({ ...r.config, nmax: 0, steps: 0 }))).toEqual(runs.map(() => ({ ...PRESETS.ablation, nmax: 0, steps: 0 })));
    expect(runs.every((r) => r.status === 'finished' && r.evaluation !== null)).toBe(true);
    expect(sweep.position).toBe(5);
  });
});
