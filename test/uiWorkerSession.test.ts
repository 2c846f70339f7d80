/**
 * The page's side of the lab's trainer worker (ui/controller/workerSession.ts) and the run state it saves
 * after every step (ui/controller/runCheckpoints.ts): what a crash, a failed start, a second command and
 * a save requested during a save do. The controller's tests drive the happy paths.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { CheckpointBlob } from '../src/core/run/checkpointBlob';
import type { TrainerWorkerApi } from '../src/trainerWorker/protocol';
import { openRunDatabase } from '../src/ui/db/runDatabase';
import { makeRun } from '../src/ui/state/labRun';
import { createLabStore, patchRun, putRun, type LabStore } from '../src/ui/state/labStore';
import { copyConfig, defaultUrlState } from '../src/ui/state/urlState';
import { RunCheckpoints } from '../src/ui/controller/runCheckpoints';
import type { ConnectTrainer } from '../src/ui/controller/trainerConnection';
import { WorkerSession } from '../src/ui/controller/workerSession';
import { FakeTrainer } from './uiFakeTrainer';

/**
 * Hands out fake trainers and keeps each connection's onCrash, which the real connection
 * (trainerConnection.ts) calls when its worker fails to load or dies.
 */
function crashableConnector(makeTrainer: () => FakeTrainer = () => new FakeTrainer()) {
  const crashes: ((message: string) => void)[] = [];
  const connect: ConnectTrainer = (onCrash) => {
    crashes.push(onCrash);
    return { api: makeTrainer(), close: () => undefined };
  };
  return { connect, crashes };
}

/** A worker whose init rejects, as the real one's does when its backend cannot start (chooseBackend). */
class TrainerThatCannotStart extends FakeTrainer {
  override async init(): Promise<never> {
    throw new Error('no WebGPU adapter');
  }
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const notices = (store: LabStore) => store.getState().notices.map((n) => n.text);

describe('the lab worker session', () => {
  it('a worker that dies shows as failed with its message; a crash of a worker already replaced is not heard', async () => {
    const store = createLabStore(defaultUrlState());
    const { connect, crashes } = crashableConnector();
    const session = new WorkerSession(store, connect, '/models/base/', null);
    session.start();
    expect(store.getState().worker).toBe('starting');
    expect(await session.ready()).toBe(true);
    expect(store.getState().worker).toBe('ready');

    store.setState({ busy: 'Evaluating' });
    crashes[0]('the trainer worker failed: out of memory');
    expect(store.getState()).toMatchObject({ worker: 'failed', busy: null });
    expect(notices(store)).toEqual(['the trainer worker failed: out of memory']);

    await session.switchBackend('wasm');
    expect(store.getState()).toMatchObject({ worker: 'ready', backend: 'wasm', busy: null });
    crashes[0]('the trainer worker failed: it could not load');
    expect(store.getState().worker).toBe('ready');
    expect(notices(store)).toEqual(['the trainer worker failed: out of memory']);
  });

  it('a worker that cannot start: failed, with why, and every command refused as not ready', async () => {
    const store = createLabStore(defaultUrlState());
    const { connect } = crashableConnector(() => new TrainerThatCannotStart());
    const session = new WorkerSession(store, connect, '/models/base/', null);
    session.start();
    expect(await session.ready()).toBe(false);
    expect(store.getState().worker).toBe('failed');
    let ran = false;
    expect(await session.command('Resetting', async () => void (ran = true))).toBe(false);
    expect(ran).toBe(false);
    expect(notices(store)).toEqual(['the trainer could not start: no WebGPU adapter', 'the trainer is not ready']);
    expect(store.getState().busy).toBeNull();
  });

  it('runs one command at a time, shown as busy; a command that fails becomes a notice and frees the lab', async () => {
    const store = createLabStore(defaultUrlState());
    const session = new WorkerSession(store, crashableConnector().connect, '/models/base/', null);
    session.start();
    const release = deferred<void>();
    const first = session.command('Forking', () => release.promise);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(store.getState().busy).toBe('Forking');
    let secondRan = false;
    expect(await session.command('Resetting', async () => void (secondRan = true))).toBe(false);
    expect(secondRan).toBe(false);
    release.resolve();
    expect(await first).toBe(true);
    expect(store.getState().busy).toBeNull();

    expect(await session.command('Evaluating', () => Promise.reject(new Error('that run is gone')))).toBe(false);
    expect(store.getState().busy).toBeNull();
    expect(notices(store)).toEqual(['that run is gone']);
  });
});

describe("the loaded run's saves", () => {
  it('one at a time: the steps made during a save get one more save, and a run saved at its step is not saved again', async () => {
    const store = createLabStore(defaultUrlState());
    const run = makeRun({ id: 'run-a', name: 'a', preset: 'quick', config: copyConfig(defaultUrlState().config), createdAt: 1 });
    putRun(store, { ...run, step: 1 });
    store.setState({ loadedRunId: run.id });
    // As the worker's saveCheckpoint (labSession.ts): the run state at the worker's step, its step in the manifest's meta.
    const answers: ((step: number) => void)[] = [];
    const api = {
      saveCheckpoint: () =>
        new Promise<CheckpointBlob>((resolve) => answers.push((step) => resolve({ manifest: { format: 'tir-lab-checkpoint', meta: { step } }, weights: Uint8Array.from([step]) }))),
    } as Partial<TrainerWorkerApi> as TrainerWorkerApi;
    const checkpoints = new RunCheckpoints(store, await openRunDatabase('ui-worker-session-saves'), () => api);

    const firstSave = checkpoints.saveLoadedRun();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(answers).toHaveLength(1);
    patchRun(store, run.id, { step: 2 });
    const second = checkpoints.saveLoadedRun();
    patchRun(store, run.id, { step: 3 });
    const third = checkpoints.saveLoadedRun();
    expect(third).toBe(second);
    answers[0](1);
    await firstSave;
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(answers).toHaveLength(2);
    answers[1](3);
    await third;
    expect(store.getState().checkpoints[run.id]?.step).toBe(3);

    await checkpoints.saveLoadedRun();
    expect(answers).toHaveLength(2);
  });
});
