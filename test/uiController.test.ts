import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { LabController } from '../src/ui/controller/labController';
import { uniqueRunName } from '../src/ui/state/labRun';
import { metricsRows } from '../src/ui/state/runColumns';
import { openRunDatabase, type RunDatabase } from '../src/ui/db/runDatabase';
import { createLabStore, setKnob, type LabState, type LabStore } from '../src/ui/state/labStore';
import { LAB_PRESETS } from '../src/ui/state/presets';
import { copyConfig, defaultUrlState } from '../src/ui/state/urlState';
import { fakeConnector } from './uiFakeTrainer';
import { runCsv } from '../src/core/archive/runExport';
import { metricsAt } from './uiFixtures';

let dbCount = 0;

async function lab(options: { steps?: number; dbName?: string; eventsTrailReplies?: boolean } = {}) {
  const db = await openRunDatabase(options.dbName ?? `ui-controller-${++dbCount}`);
  const initial = defaultUrlState();
  initial.preset = 'quick';
  initial.config = { ...copyConfig(LAB_PRESETS.quick.config), steps: options.steps ?? 3 };
  const store = createLabStore(initial);
  const fake = fakeConnector({ eventsTrailReplies: options.eventsTrailReplies });
  let clock = 1000;
  const controller = new LabController({ store, connect: fake.connect, db, baseModelUrl: '/models/base/', now: () => clock++ });
  return { db, store, fake, controller };
}

function only<T>(values: T[]): T {
  expect(values).toHaveLength(1);
  return values[0];
}

function untilState(store: LabStore, done: (s: LabState) => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (done(store.getState())) return resolve();
    const unsubscribe = store.subscribe((s) => {
      if (done(s)) {
        unsubscribe();
        resolve();
      }
    });
  });
}

async function storedSteps(db: RunDatabase, runId: string): Promise<number[]> {
  return (await db.steps(runId)).map((m) => m.step);
}

describe('lab controller against a fake trainer', () => {
  it('trains a new run from the knobs to its budget, saving it as it goes', async () => {
    const { db, store, fake, controller } = await lab({ steps: 3 });
    await controller.start(false);
    expect(store.getState().worker).toBe('ready');
    expect(store.getState().backendInfo?.name).toBe('wasm');
    expect(fake.trainers[0].calls[0].args[0]).toEqual({ backend: 'auto', baseModelUrl: '/models/base/' });

    await controller.train();
    await controller.flush();
    const run = store.getState().runs[only(store.getState().runOrder)];
    expect(run.status).toBe('finished');
    expect(run.columns.step).toEqual([0, 1, 2, 3]);
    expect(run.columns.accuracy).toEqual([null, 0.01, 0.02, 0.03]);
    expect(run.samples.map((s) => s.step)).toEqual([3, 3, 2, 2, 1, 1]);
    expect(store.getState().selectedRunId).toBe(run.id);
    // The run's state is saved after every step.
    expect(fake.trainers[0].methods()).toEqual(['init', 'startRun', 'train', 'saveCheckpoint', 'saveCheckpoint', 'saveCheckpoint']);
    expect(fake.trainers[0].calls[1].args).toEqual([run.id, store.getState().config, undefined]);

    expect(await storedSteps(db, run.id)).toEqual([0, 1, 2, 3]);
    expect((await db.samples(run.id)).length).toBe(6);
    expect(only(await db.listRuns())).toMatchObject({ id: run.id, status: 'finished', step: 3, checkpointStep: 3 });
    expect((await db.checkpoint(run.id))?.step).toBe(3);
  });

  it('Train on a finished run says so and starts a new run with a name of its own', async () => {
    const { store, controller } = await lab({ steps: 2 });
    await controller.start(false);
    await controller.train();
    await controller.flush();
    const [finished] = store.getState().runOrder;
    const firstName = store.getState().runs[finished].name;
    expect(firstName).toBe('quick Nmax 2 ppo seed 1');

    await controller.train();
    await controller.flush();
    expect(store.getState().runOrder).toHaveLength(2);
    const second = store.getState().runs[store.getState().selectedRunId!];
    expect(second.id).not.toBe(finished);
    expect(second.name).toBe('quick Nmax 2 ppo seed 1 (2)');
    expect(second.status).toBe('finished');
    expect(store.getState().runs[finished].step).toBe(2);
    expect(store.getState().notices.map((n) => [n.kind, n.text])).toContainEqual([
      'info',
      '"quick Nmax 2 ppo seed 1" finished at step 2: a new run, "quick Nmax 2 ppo seed 1 (2)", starts from the knobs (Fork continues a run with a larger step budget)',
    ]);
    expect(uniqueRunName('a', ['a', 'a (2)', 'b'])).toBe('a (3)');
    expect(uniqueRunName('c', ['a'])).toBe('c');
  });

  it('refuses invalid knobs with the field message, in the labels on screen, and sends nothing to the worker', async () => {
    const { store, fake, controller } = await lab();
    await controller.start(false);
    setKnob(store, 'nmax', 99);
    setKnob(store, 'learningRate', Number.NaN);
    await controller.train();
    await controller.step();
    expect(fake.trainers[0].methods()).toEqual(['init']);
    expect(store.getState().runOrder).toEqual([]);
    expect(store.getState().notices.at(-1)?.text).toBe(
      'fix the marked fields first: “Nmax (code calls)” must be between 0 and 16; “Learning rate” must be a number',
    );
  });

  it('pauses between steps, saves after every step, and a reload continues the run from its last checkpoint, asking before it deletes steps past it', async () => {
    const dbName = `ui-controller-reload-${++dbCount}`;
    const first = await lab({ steps: 50, dbName });
    await first.controller.start(false);
    const training = first.controller.train();
    await untilState(first.store, (s) => Object.values(s.runs).some((r) => r.step >= 12));
    await first.controller.pause();
    await training;
    await first.controller.flush();
    const runId = only(first.store.getState().runOrder);
    const pausedAt = first.store.getState().runs[runId].step;
    expect(first.store.getState().runs[runId].status).toBe('paused');
    // Saved after every step; when train() returned the saved state was at its step already.
    expect(first.fake.trainers[0].methods().filter((m) => m === 'saveCheckpoint')).toHaveLength(pausedAt);
    expect((await first.db.checkpoint(runId))?.step).toBe(pausedAt);

    // Pretend the page closed after two more steps were recorded but before their checkpoint.
    const extra = metricsRows(first.store.getState().runs[runId].columns).slice(-1)[0];
    await first.db.putStep(runId, { ...extra, step: pausedAt + 1 });
    await first.db.putStep(runId, { ...extra, step: pausedAt + 2 });
    await first.db.putRun({ ...only(await first.db.listRuns()), status: 'training' });

    const second = await lab({ steps: 50, dbName });
    await second.controller.start(false);
    const restored = second.store.getState().runs[runId];
    expect(second.store.getState().selectedRunId).toBe(runId);
    expect(restored.status).toBe('paused');
    expect(restored.columns.step.at(-1)).toBe(pausedAt + 2);

    // The worker's notice on what the checkpoint could not restore reaches the person, named by run.
    second.fake.trainers[0].startNotices = ['the checkpoint holds weights only'];
    const stepping = second.controller.step();
    await untilState(second.store, (s) => s.restartQuestion !== null);
    expect(second.store.getState().restartQuestion).toEqual({ runId, runName: restored.name, savedStep: pausedAt, lastStep: pausedAt + 2 });
    expect(second.fake.trainers[0].methods()).toEqual(['init']);
    second.controller.answerRestart('drop');
    await stepping;
    await second.controller.flush();
    expect(second.store.getState().restartQuestion).toBeNull();
    const [, startRun] = second.fake.trainers[0].calls;
    expect(startRun.method).toBe('startRun');
    expect((startRun.args[2] as { step: number }).step).toBe(pausedAt);
    expect(second.store.getState().notices.map((n) => [n.kind, n.text])).toContainEqual(['info', `${restored.name}: the checkpoint holds weights only`]);
    const after = second.store.getState().runs[runId];
    expect(after.columns.step.slice(-3)).toEqual([pausedAt - 1, pausedAt, pausedAt + 1]);
    expect(await storedSteps(second.db, runId)).toEqual(Array.from({ length: pausedAt + 2 }, (_, i) => i));
  });

  it('leaving for another tab stops training after its step, saves it at the last step shown, and closes the worker for good', async () => {
    // The last step's event may trail pause's reply: leaving waits for it before the save.
    const { db, store, fake, controller } = await lab({ steps: 50, eventsTrailReplies: true });
    await controller.start(false);
    const training = controller.train();
    await untilState(store, (s) => Object.values(s.runs).some((r) => r.step >= 5));
    await controller.leave();
    const runId = only(store.getState().runOrder);
    // Whatever still trails the closed worker has landed.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const run = store.getState().runs[runId];
    expect(run.status).toBe('paused');
    expect(run.step).toBeLessThan(50);
    // What the tab showed is what the next tab reads, state and curve.
    expect((await db.checkpoint(runId))?.step).toBe(run.step);
    expect(await storedSteps(db, runId)).toEqual(Array.from(run.columns.step));
    expect(only(await db.listRuns())).toMatchObject({ status: 'paused', step: run.step, checkpointStep: run.step });
    expect(fake.closed).toEqual([0]);
    // Nothing in this tab starts a worker again: a backend switch after the move finds none to start.
    await controller.switchBackend('cpu');
    expect(fake.trainers).toHaveLength(1);
    expect(fake.trainers[0].methods().at(-1)).toBe('saveCheckpoint');
    await training;
  });

  it('asked before steps past the saved state are deleted, keeps the curves as a finished run and trains a copy, or does nothing', async () => {
    const dbName = `ui-controller-keep-${++dbCount}`;
    const first = await lab({ steps: 20, dbName });
    await first.controller.start(false);
    for (let i = 0; i < 4; i++) await first.controller.step();
    await first.controller.flush();
    const runId = only(first.store.getState().runOrder);
    expect((await first.db.checkpoint(runId))?.step).toBe(4);
    // The page closed after steps 5 and 6 were recorded, before their state was saved.
    const extra = metricsRows(first.store.getState().runs[runId].columns).slice(-1)[0];
    await first.db.putStep(runId, { ...extra, step: 5 });
    await first.db.putStep(runId, { ...extra, step: 6 });

    const second = await lab({ steps: 20, dbName });
    await second.controller.start(false);
    const name = second.store.getState().runs[runId].name;
    // The press, once its question is on screen (wrapped: an async function's promise result would be awaited with it).
    const asked = async (press: () => Promise<void>) => {
      const pressing = press();
      await untilState(second.store, (s) => s.restartQuestion !== null);
      return { pressing };
    };
    // Cancel: nothing changes, nothing reaches the worker.
    const cancelled = await asked(() => second.controller.train());
    second.controller.answerRestart('cancel');
    await cancelled.pressing;
    expect(second.store.getState().runs[runId].columns.step).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(second.fake.trainers[0].methods()).toEqual(['init']);
    // A second press while asked is not a second question.
    const stepping = await asked(() => second.controller.step());
    await second.controller.train();
    expect(second.fake.trainers[0].methods()).toEqual(['init']);
    second.controller.answerRestart('keep');
    await stepping.pressing;
    await second.controller.flush();

    const state = second.store.getState();
    const kept = state.runs[runId];
    expect(kept.status).toBe('finished');
    expect(kept.columns.step).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const copyId = state.runOrder[0];
    const copy = state.runs[copyId];
    expect(copy.name).toBe(`${name} from step 4`);
    expect(state.selectedRunId).toBe(copyId);
    expect(copy.columns.step).toEqual([0, 1, 2, 3, 4, 5]);
    const startRun = second.fake.trainers[0].calls[1];
    expect(startRun.args[0]).toBe(copyId);
    expect((startRun.args[2] as { step: number }).step).toBe(4);
    expect(await storedSteps(second.db, runId)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(await storedSteps(second.db, copyId)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(state.notices.at(-1)?.text).toBe(`"${name}" is kept as it was, finished at step 6; "${name} from step 4" trains on from step 4`);
  });

  it('a run with curves and no saved state asks before it starts again from step 0', async () => {
    const dbName = `ui-controller-nostate-${++dbCount}`;
    const first = await lab({ steps: 20, dbName });
    await first.controller.start(false);
    await first.controller.step();
    await first.controller.flush();
    const runId = only(first.store.getState().runOrder);
    await first.db.deleteCheckpoint(runId);

    const second = await lab({ steps: 20, dbName });
    await second.controller.start(false);
    const training = second.controller.step();
    await untilState(second.store, (s) => s.restartQuestion !== null);
    expect(second.store.getState().restartQuestion).toMatchObject({ runId, savedStep: null, lastStep: 1 });
    second.controller.answerRestart('drop');
    await training;
    expect(second.store.getState().runs[runId].columns.step).toEqual([0, 1]);
    expect((second.fake.trainers[0].calls[1].args[2] as unknown)).toBeUndefined();
  });

  it('after a reload the settings describe the run on the charts: the run the URL names, else the newest, else none', async () => {
    const dbName = `ui-controller-shown-${++dbCount}`;
    const first = await lab({ steps: 2, dbName });
    await first.controller.start(false);
    setKnob(first.store, 'nmax', 4);
    await first.controller.train();
    const nmax4 = first.store.getState().selectedRunId!;
    first.controller.newRunFromKnobs();
    setKnob(first.store, 'nmax', 1);
    await first.controller.train();
    const nmax1 = first.store.getState().selectedRunId!;
    await first.controller.flush();

    // The page reloads with knobs of Nmax 2 (in the URL), as after editing a field.
    const reload = async (url: { runId: string | null; urlNamesSettings: boolean }) => {
      const again = await lab({ steps: 2, dbName });
      expect(again.store.getState().config.nmax).toBe(2);
      await again.controller.start(false, url);
      return again.store.getState();
    };
    const plain = await reload({ runId: null, urlNamesSettings: false });
    expect(plain.selectedRunId).toBe(nmax1);
    expect(plain.config.nmax).toBe(1);
    const named = await reload({ runId: nmax4, urlNamesSettings: true });
    expect(named.selectedRunId).toBe(nmax4);
    expect(named.config).toEqual(named.runs[nmax4].config);
    expect(named.config.nmax).toBe(4);
    const settingsOnly = await reload({ runId: null, urlNamesSettings: true });
    expect(settingsOnly.selectedRunId).toBeNull();
    expect(settingsOnly.config.nmax).toBe(2);
    const gone = await reload({ runId: 'run-deleted', urlNamesSettings: true });
    expect(gone.selectedRunId).toBeNull();
    expect(gone.notices.map((n) => n.text)).toContain('URL: no stored run run-deleted in this browser (its settings are in the knobs)');
  });

  it('starts a new run with the knobs it checked, from the base model, and not while the restart question waits', async () => {
    const { store, fake, controller } = await lab({ steps: 3 });
    await controller.start(false);
    setKnob(store, 'nmax', 4);
    await controller.step();
    const runId = only(store.getState().runOrder);
    const start = only(fake.trainers[0].calls.filter((c) => c.method === 'startRun'));
    expect(start.args[0]).toBe(runId);
    expect((start.args[1] as { nmax: number }).nmax).toBe(4);
    expect(start.args[2]).toBeUndefined();
    expect(store.getState().runs[runId].config.nmax).toBe(4);

    // Another run's lost steps are being asked about (stepsPastCheckpoint.ts): Step starts nothing new.
    store.setState({ restartQuestion: { runId, runName: 'x', savedStep: 1, lastStep: 2 } });
    controller.newRunFromKnobs();
    await controller.step();
    expect(store.getState().runOrder).toEqual([runId]);
    expect(fake.trainers[0].methods().filter((m) => m === 'startRun')).toHaveLength(1);
  });

  it('resets with changed knobs: same run, step 0, the new config, old records gone', async () => {
    const { db, store, fake, controller } = await lab({ steps: 3 });
    await controller.start(false);
    await controller.step();
    await controller.step();
    const runId = only(store.getState().runOrder);
    setKnob(store, 'nmax', 0);
    await controller.reset();
    await controller.flush();
    const run = store.getState().runs[runId];
    expect(run.config.nmax).toBe(0);
    // The name says the Nmax it now trains with (it was "quick Nmax 2 ppo seed 1").
    expect(run.name).toBe('quick Nmax 0 ppo seed 1');
    expect(run.columns.step).toEqual([0]);
    expect(run.samples).toEqual([]);
    const last = fake.trainers[0].calls.at(-1)!;
    expect(last.method).toBe('startRun');
    expect((last.args[1] as { nmax: number }).nmax).toBe(0);
    expect(await storedSteps(db, runId)).toEqual([0]);
    expect(await db.checkpoint(runId)).toBeNull();

    // Unchanged knobs: still a fresh start at step 0, not the worker's reset (which returns to where a run started).
    await controller.step();
    await controller.reset();
    expect(fake.trainers[0].methods().at(-1)).toBe('startRun');
    expect(store.getState().runs[runId].columns.step).toEqual([0]);
  });

  it('forks: a new run with the metrics so far, started from the checkpoint, with the knobs now set', async () => {
    const { db, store, fake, controller } = await lab({ steps: 10 });
    await controller.start(false);
    for (let i = 0; i < 4; i++) await controller.step();
    const sourceId = only(store.getState().runOrder);
    setKnob(store, 'temperature', 1.1);
    await controller.fork();
    await controller.flush();
    const [forkId] = store.getState().runOrder;
    const fork = store.getState().runs[forkId];
    expect(forkId).not.toBe(sourceId);
    expect(store.getState().selectedRunId).toBe(forkId);
    expect(fork.name).toMatch(/fork@4$/);
    expect(fork.config.temperature).toBe(1.1);
    expect(store.getState().runs[sourceId].config.temperature).toBe(LAB_PRESETS.quick.config.temperature);
    expect(fork.columns.step).toEqual([0, 1, 2, 3, 4]);
    const startRun = fake.trainers[0].calls.at(-1)!;
    expect(startRun.method).toBe('startRun');
    expect(startRun.args[0]).toBe(forkId);
    expect((startRun.args[2] as { step: number }).step).toBe(4);
    expect(await storedSteps(db, forkId)).toEqual([0, 1, 2, 3, 4]);
    expect((await db.checkpoint(forkId))?.step).toBe(4);
  });

  it("names a fork by its own Nmax, algorithm and seed when they are not its source's, and never twice the same", async () => {
    const { store, controller } = await lab({ steps: 10 });
    await controller.start(false);
    for (let i = 0; i < 2; i++) await controller.step();
    const sourceId = only(store.getState().runOrder);
    const source = store.getState().runs[sourceId].name;
    await controller.fork();
    store.setState({ selectedRunId: sourceId });
    await controller.fork();
    store.setState({ selectedRunId: sourceId });
    setKnob(store, 'nmax', 0);
    setKnob(store, 'seed', 42);
    await controller.fork();
    const names = store.getState().runOrder.map((id) => store.getState().runs[id].name);
    expect(names).toEqual([`quick Nmax 0 ppo seed 42 fork@2 of ${source}`, `${source} fork@2 (2)`, `${source} fork@2`, source]);
  });

  it('runs an Nmax sweep: one run per value, same seed and budget, each evaluated at every value', async () => {
    const { store, fake, controller } = await lab({ steps: 2 });
    store.setState({ sweepNmax: [0, 1, 3] });
    await controller.start(false);
    await controller.startSweep();
    const sweep = store.getState().sweep!;
    expect(sweep.position).toBe(3);
    expect(sweep.running).toBe(false);
    const runs = sweep.runIds.map((id) => store.getState().runs[id]);
    expect(runs.map((r) => r.config.nmax)).toEqual([0, 1, 3]);
    expect(new Set(runs.map((r) => r.config.seed)).size).toBe(1);
    expect(runs.every((r) => r.status === 'finished' && r.step === 2)).toBe(true);
    expect(runs.map((r) => r.evaluation)).toEqual([
      { 0: 0, 1: 0.01, 3: 0.03 },
      { 0: 0.1, 1: 0.11, 3: 0.13 },
      { 0: 0.3, 1: 0.31, 3: 0.33 },
    ]);
    expect(store.getState().progress.sweep).toMatchObject({ done: 3, total: 3, detail: 'done' });
    expect(fake.trainers[0].methods().filter((m) => m === 'evaluate')).toHaveLength(3);

    // A second sweep of the same seed (a longer budget) names its arms apart from the first's.
    setKnob(store, 'steps', 3);
    await controller.startSweep();
    const second = store.getState().sweep!.runIds.map((id) => store.getState().runs[id].name);
    expect(second).toEqual(['sweep Nmax 0 (seed 1) (2)', 'sweep Nmax 1 (seed 1) (2)', 'sweep Nmax 3 (seed 1) (2)']);
    expect(runs.map((r) => r.name)).toEqual(['sweep Nmax 0 (seed 1)', 'sweep Nmax 1 (seed 1)', 'sweep Nmax 3 (seed 1)']);
  });

  it('Train runs the sweep when the sweep preset is chosen, and trains one run otherwise', async () => {
    const { store, fake, controller } = await lab({ steps: 2 });
    await controller.start(false);
    store.setState({ preset: 'sweep', sweepNmax: [0, 2] });
    await controller.train();
    const sweep = store.getState().sweep!;
    expect(sweep.runIds.map((id) => store.getState().runs[id].config.nmax)).toEqual([0, 2]);
    expect(sweep.position).toBe(2);
    expect(fake.trainers[0].methods().filter((m) => m === 'evaluate')).toHaveLength(2);
    store.setState({ preset: 'quick' });
    controller.newRunFromKnobs();
    await controller.train();
    expect(Object.keys(store.getState().runs)).toHaveLength(3);
    expect(store.getState().sweep!.runIds).toEqual(sweep.runIds);
  });

  it('brings a sweep back after a reload, with its matrix rows, ready to resume where it stopped', async () => {
    const dbName = `ui-controller-sweep-${++dbCount}`;
    const first = await lab({ steps: 2, dbName });
    first.store.setState({ sweepNmax: [0, 2] });
    await first.controller.start(false);
    await first.controller.startSweep();
    // A third run that never trained, as if the page closed mid-sweep.
    const [lastId] = first.store.getState().sweep!.runIds.slice(-1);
    const stored = only((await first.db.listRuns()).filter((r) => r.id === lastId));
    await first.db.putRun({ ...stored, id: `${lastId}-late`, createdAt: stored.createdAt + 1, status: 'idle', step: 0, evaluation: null, config: { ...stored.config, nmax: 4 } });
    await first.controller.flush();

    const second = await lab({ steps: 2, dbName });
    await second.controller.start(false);
    const sweep = second.store.getState().sweep!;
    expect(sweep.nmaxValues).toEqual([0, 2, 4]);
    expect(sweep.position).toBe(2);
    expect(sweep.running).toBe(false);
    expect(second.store.getState().runs[sweep.runIds[1]].evaluation).toEqual({ 0: 0.2, 2: 0.22 });
  });

  it('refuses a file that is not a run or checkpoint file, or a cut one, naming it, and changes nothing', async () => {
    const { db, store, controller } = await lab();
    await controller.start(false);
    const before = store.getState();
    const refusal = (name: string, text: string) => {
      expect(controller.importFiles([{ name, bytes: new TextEncoder().encode(text) }])).toBe(false);
      return store.getState().notices.at(-1)?.text;
    };
    expect(refusal('weights.json', '{"format":"keras"}')).toBe(
      'import of weights.json refused: it is neither a run file (Export run) nor a checkpoint file (Export checkpoint) of this lab',
    );
    expect(refusal('notes.txt', 'not json at all')).toBe(
      'import of notes.txt refused: it is neither a run file (Export run) nor a checkpoint file (Export checkpoint) of this lab',
    );
    expect(refusal('run-curves.csv', runCsv([metricsAt(0), metricsAt(1)]))).toBe(
      'import of run-curves.csv refused: a CSV export holds only the curves, for a spreadsheet; import the file Export run writes',
    );
    // A checkpoint file cut short: refused as a checkpoint, with the reason.
    expect(refusal('cut.json', '{"format":"tir-lab-checkpoint-file","formatVersion":1,"man')).toBe(
      'import of cut.json refused: the file is not valid JSON, so it is not a TIR Lab checkpoint',
    );
    await controller.flush();
    expect(store.getState().runs).toBe(before.runs);
    expect(store.getState().config).toBe(before.config);
    expect(await db.listRuns()).toEqual([]);
  });

  it('exports a checkpoint and imports it back as a paused run at its step', async () => {
    const { store, fake, controller } = await lab({ steps: 10 });
    await controller.start(false);
    fake.trainers[0].saveCheckpoint = async () => ({ manifest: realisticManifest(2), weights: new Uint8Array(8) });
    await controller.step();
    await controller.step();
    const runId = only(store.getState().runOrder);
    const text = await controller.exportCheckpoint(runId);
    expect(controller.importFiles([{ name: 'run.json', bytes: new TextEncoder().encode(text!) }])).toBe(true);
    const [importedId] = store.getState().runOrder;
    expect(store.getState().runs[importedId]).toMatchObject({ status: 'paused', step: 2, checkpointStep: 2 });
    expect(store.getState().runs[importedId].name).toMatch(/\(imported\)$/);
  });

  it('a run file imports into a fresh lab with its curves, settings and checkpoint, under a new name on a clash, and Train continues it', async () => {
    const home = await lab({ steps: 5 });
    await home.controller.start(false);
    home.fake.trainers[0].saveCheckpoint = async () => ({ manifest: realisticManifest(2), weights: new Uint8Array(8) });
    await home.controller.step();
    await home.controller.step();
    const sourceId = only(home.store.getState().runOrder);
    const text = await home.controller.exportRun(sourceId);

    const school = await lab({ steps: 3 });
    await school.controller.start(false);
    setKnob(school.store, 'seed', 9);
    expect(school.controller.importFiles([{ name: 'run.json', bytes: new TextEncoder().encode(text!) }])).toBe(true);
    await school.controller.flush();
    const state = school.store.getState();
    const run = state.runs[only(state.runOrder)];
    expect(run).toMatchObject({ name: 'quick Nmax 2 ppo seed 1', status: 'paused', step: 2, checkpointStep: 2 });
    expect(run.columns.step).toEqual([0, 1, 2]);
    expect(run.columns.accuracy).toEqual([null, 0.01, 0.02]);
    expect(run.samples.map((s) => s.step)).toEqual([2, 2, 1, 1]);
    expect(state.selectedRunId).toBe(run.id);
    expect(state.config).toEqual(home.store.getState().runs[sourceId].config);
    expect(await storedSteps(school.db, run.id)).toEqual([0, 1, 2]);
    expect((await school.db.checkpoint(run.id))?.step).toBe(2);
    expect(only(await school.db.listRuns())).toMatchObject({ id: run.id, step: 2, checkpointStep: 2 });

    await school.controller.train();
    const startRun = school.fake.trainers[0].calls.find((c) => c.method === 'startRun')!;
    expect(startRun.args[0]).toBe(run.id);
    expect((startRun.args[2] as { step: number; checkpoint: { manifest: unknown } }).step).toBe(2);
    expect((startRun.args[2] as { checkpoint: { manifest: unknown } }).checkpoint.manifest).toEqual(realisticManifest(2));
    expect(school.store.getState().runs[run.id]).toMatchObject({ status: 'finished', step: 5 });
    expect(school.store.getState().runs[run.id].columns.step).toEqual([0, 1, 2, 3, 4, 5]);

    expect(school.controller.importFiles([{ name: 'run.json', bytes: new TextEncoder().encode(text!) }])).toBe(true);
    const again = school.store.getState().runs[school.store.getState().runOrder[0]];
    expect(again.name).toBe('quick Nmax 2 ppo seed 1 (2)');
    expect(school.store.getState().runs[run.id].step).toBe(5);
    expect(school.store.getState().notices.at(-1)?.text).toBe(
      'imported run.json as "quick Nmax 2 ppo seed 1 (2)" (a run named "quick Nmax 2 ppo seed 1" is already here) at step 2: press Train to continue it from its checkpoint at step 2',
    );
    expect(school.controller.importFiles([{ name: 'cut.json', bytes: new TextEncoder().encode(text!.slice(0, 300)) }])).toBe(false);
    expect(school.store.getState().notices.at(-1)?.text).toBe('import of cut.json refused: the file is not valid JSON (cut short or not a run file)');
    const tooNew = text!.replace('"formatVersion":2', '"formatVersion":3');
    expect(school.controller.importFiles([{ name: 'new.json', bytes: new TextEncoder().encode(tooNew) }])).toBe(false);
    expect(school.store.getState().runOrder).toHaveLength(2);
    expect(school.store.getState().notices.at(-1)?.text).toBe(
      'import of new.json refused: the run file is version 3, from a newer TIR Lab; this lab reads versions 1 and 2',
    );
  });

  it('switches backend: the run is checkpointed, a new worker starts, the run continues from the checkpoint', async () => {
    const { store, fake, controller } = await lab({ steps: 10 });
    await controller.start(false);
    await controller.step();
    await controller.step();
    await controller.switchBackend('cpu');
    expect(fake.closed).toEqual([0]);
    expect(fake.trainers[1].backend).toBe('cpu');
    expect(store.getState().backend).toBe('cpu');
    expect(store.getState().backendInfo?.name).toBe('cpu');
    await controller.step();
    const startRun = fake.trainers[1].calls.find((c) => c.method === 'startRun')!;
    expect((startRun.args[2] as { step: number }).step).toBe(2);
    expect(store.getState().runs[only(store.getState().runOrder)].step).toBe(3);
  });

  it('Step pressed while a backend switch saves the checkpoint does not reach the closing worker (it once did, and Step and Train were dead until reload)', async () => {
    const { store, fake, controller } = await lab({ steps: 10 });
    await controller.start(false);
    await controller.step();
    const old = fake.trainers[0];
    // As on WebGL: the switch's checkpoint takes a while, and a call to the worker it then closes
    // never answers (comlink's call to a terminated worker stays pending).
    const save = old.saveCheckpoint.bind(old);
    old.saveCheckpoint = () => new Promise((resolve) => setTimeout(() => resolve(save()), 30));
    let stepsOnOld = 0;
    old.step = () => {
      stepsOnOld++;
      return new Promise(() => {});
    };
    const switching = controller.switchBackend('cpu');
    const pressed = controller.step();
    await switching;
    await Promise.race([pressed, new Promise((resolve) => setTimeout(resolve, 100))]);
    expect(stepsOnOld).toBe(0);
    expect(store.getState().busy).toBeNull();
    expect(store.getState().worker).toBe('ready');

    // Step and Train work on the new worker, and a second switch does not hang.
    await controller.step();
    const runId = only(store.getState().runOrder);
    expect(store.getState().runs[runId].step).toBe(2);
    await controller.switchBackend('wasm');
    expect(fake.trainers).toHaveLength(3);
    await controller.train();
    expect(store.getState().runs[runId]).toMatchObject({ step: 10, status: 'finished' });
  });

  it("asks the model the shown run is at: the base before a run, the run's own weights once loaded, its saved state after a reload; not while training", async () => {
    const dbName = `ui-controller-ask-${++dbCount}`;
    const { store, fake, controller } = await lab({ steps: 50, dbName });
    await controller.start(false);
    const labels: string[] = [];
    const written: string[] = [];
    const listener = { onModel: (label: string) => labels.push(label), onAnswer: (a: { segments: { text: string }[] }) => written.push(a.segments[0].text) };
    const asks = () => fake.trainers.flatMap((t) => t.calls).filter((c) => c.method === 'askModel').map((c) => c.args[0] as { model: { kind: string }; config: unknown; greedy: boolean });

    const answer = await controller.askModel('what is 3*4?', true, listener);
    expect(answer?.segments[0].text).toBe(' Answer: 12');
    expect(written).toEqual([' Answer:', ' Answer: 12']);
    expect(labels).toEqual(['the Base model (ZeroTIR), before any practice']);
    expect(asks()[0]).toMatchObject({ model: { kind: 'base' }, greedy: true, config: store.getState().config });

    await controller.step();
    setKnob(store, 'nmax', 4);
    await controller.askModel('what is 3*4?', false, listener);
    const runId = store.getState().selectedRunId!;
    expect(asks()[1]).toMatchObject({ model: { kind: 'run', runId }, greedy: false, config: { nmax: 4 } });
    expect(labels[1]).toBe(`“${store.getState().runs[runId].name}” at step 1`);

    // While training: not asked, and said why.
    const training = controller.train();
    await untilState(store, (s) => s.runs[runId]?.status === 'training');
    expect(await controller.askModel('what is 3*4?', true, listener)).toBeNull();
    expect(store.getState().notices.at(-1)?.text).toBe('the model is busy training: pause it (or let the step finish), then ask');
    await controller.pause();
    await training;
    await controller.flush();

    const reloaded = await lab({ steps: 50, dbName });
    await reloaded.controller.start(false);
    await reloaded.controller.askModel('what is 3*4?', true, listener);
    const [asked] = reloaded.fake.trainers[0].calls.filter((c) => c.method === 'askModel');
    expect((asked.args[0] as { model: { kind: string } }).model.kind).toBe('checkpoint');
    expect(labels.at(-1)).toMatch(/^“.+” as saved at step \d+$/);
  });

  it('pretrains, then starts new runs from the pretrained base', async () => {
    const { store, fake, controller } = await lab({ steps: 2 });
    await controller.start(false);
    await controller.pretrain({ steps: 4, seed: 3, toolPrior: 0.05 });
    expect(store.getState().pretrainLoss).toMatchObject({ step: [1, 2, 3, 4], loss: [4, 2, 4 / 3, 1] });
    expect(store.getState().progress.pretrain).toEqual({ done: 4, total: 4, etaSeconds: 0, detail: undefined });
    expect(store.getState().baseModel).toBe('pretrained');
    await controller.step();
    const startRun = fake.trainers[0].calls.find((c) => c.method === 'startRun')!;
    expect(startRun.args[2]).toEqual({ checkpoint: store.getState().pretrainedBase!.checkpoint, step: 0 });
  });
});

function realisticManifest(step: number) {
  return {
    format: 'tir-lab-checkpoint',
    formatVersion: 1,
    tokenizerVersion: 1,
    config: {},
    weights: [{ name: 'w', shape: [2], offset: 0, length: 8 }],
    meta: { step },
  };
}
