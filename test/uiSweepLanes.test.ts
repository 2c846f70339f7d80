import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { LabController } from '../src/ui/controller/labController';
import { sweepLanes } from '../src/ui/controller/sweepLanes';
import { openRunDatabase } from '../src/ui/db/runDatabase';
import { choosePreset, createLabStore, setKnob, type LabStore } from '../src/ui/state/labStore';
import { defaultUrlState } from '../src/ui/state/urlState';
import { fakeConnector } from './uiFakeTrainer';

describe('how many sweep arms train at once', () => {
  it('one per two cores (a trainer, and its Python workers with the page), at most four and at most the arms left', () => {
    expect(sweepLanes(2, 5)).toBe(1);
    expect(sweepLanes(3, 5)).toBe(1);
    expect(sweepLanes(4, 5)).toBe(2);
    expect(sweepLanes(8, 5)).toBe(4);
    expect(sweepLanes(16, 5)).toBe(4);
    expect(sweepLanes(16, 2)).toBe(2);
    expect(sweepLanes(1, 5)).toBe(1);
    expect(sweepLanes(0, 5)).toBe(1);
    expect(sweepLanes(8, 0)).toBe(1);
  });
});

let dbCount = 0;

/** A lab on `cores` cores whose trainer workers are FakeTrainers, the ablation sweep chosen at 3 steps an arm. */
async function sweepLab(cores: number) {
  const db = await openRunDatabase(`ui-sweep-lanes-${++dbCount}`);
  const store = createLabStore(defaultUrlState());
  const fake = fakeConnector();
  let clock = 1000;
  const controller = new LabController({ store, connect: fake.connect, db, baseModelUrl: '/models/base/', now: () => clock++, cores });
  await controller.start(false);
  choosePreset(store, 'ablation');
  setKnob(store, 'steps', 3);
  return { store, fake, controller };
}

/** The most runs seen training at once, and the progress lines shown, while the store changes. */
function watch(store: LabStore) {
  const seen = { mostTraining: 0, details: [] as string[] };
  store.subscribe((s) => {
    const training = Object.values(s.runs).filter((r) => r.status === 'training').length;
    seen.mostTraining = Math.max(seen.mostTraining, training);
    const detail = s.progress.sweep?.detail;
    if (detail && detail !== seen.details.at(-1)) seen.details.push(detail);
  });
  return seen;
}

/** Resolves once two arms have reached `step`. */
function untilTwoArmsAt(store: LabStore, step: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const unsubscribe = store.subscribe((s) => {
      if (Object.values(s.runs).filter((r) => r.step >= step).length >= 2) {
        unsubscribe();
        resolve();
      }
    });
  });
}

function startedRuns(trainer: { calls: { method: string; args: unknown[] }[] }): string[] {
  return trainer.calls.filter((c) => c.method === 'startRun').map((c) => c.args[0] as string);
}

describe('a sweep on four cores', () => {
  it('trains its arms two at a time, one worker each, with every arm’s curve, checkpoint and matrix row', async () => {
    const { store, fake, controller } = await sweepLab(4);
    const seen = watch(store);
    await controller.train();
    const sweep = store.getState().sweep!;
    const runs = sweep.runIds.map((id) => store.getState().runs[id]);
    expect(runs.map((r) => r.config.nmax)).toEqual([0, 1, 2, 4, 8]);
    // The lab's worker trained nothing; two arm workers did, and both were closed.
    expect(fake.trainers).toHaveLength(3);
    expect(fake.trainers[0].methods()).not.toContain('train');
    expect(fake.trainers.slice(1).map((t) => t.backend)).toEqual(['wasm', 'wasm']);
    expect(fake.purposes).toEqual(['lab', 'sweepArm', 'sweepArm']);
    expect(fake.closed.sort()).toEqual([1, 2]);
    const lanes = [startedRuns(fake.trainers[1]), startedRuns(fake.trainers[2])];
    expect(lanes.every((ids) => ids.length >= 2)).toBe(true);
    expect([...lanes[0], ...lanes[1]].sort()).toEqual([...sweep.runIds].sort());
    expect(seen.mostTraining).toBe(2);
    for (const run of runs) {
      expect(run.status).toBe('finished');
      expect(Array.from(run.columns.step)).toEqual([0, 1, 2, 3]);
      // The fake's row: (10 trainNmax + evalNmax) / 100 at each sweep Nmax.
      expect(run.evaluation).toEqual(Object.fromEntries([0, 1, 2, 4, 8].map((n) => [n, (run.config.nmax * 10 + n) / 100])));
      expect(store.getState().checkpoints[run.id]?.step).toBe(3);
    }
    expect(sweep.position).toBe(5);
    expect(store.getState().sweep!.running).toBe(false);
    expect(seen.details.some((d) => /^training Nmax \d+ and \d+ side by side · step \d+ of 15 in all$/.test(d))).toBe(true);
    expect(seen.details.at(-1)).toBe('done');
  });

  it('leaving for another tab stops every arm after its step with its state saved, and closes every worker', async () => {
    const { store, fake, controller } = await sweepLab(4);
    setKnob(store, 'steps', 40);
    const sweepDone = controller.train();
    await untilTwoArmsAt(store, 5);
    await controller.leave();
    const state = store.getState();
    expect(state.sweep!.running).toBe(false);
    const paused = state.sweep!.runIds.filter((id) => state.runs[id].status === 'paused');
    expect(paused).toHaveLength(2);
    for (const id of paused) expect(state.checkpoints[id]?.step).toBe(state.runs[id].step);
    expect(fake.closed.sort()).toEqual([0, 1, 2]);
    await sweepDone;
  });

  it('Pause stops every arm after its step with its state saved; Train goes on from there with no step repeated or lost', async () => {
    const { store, fake, controller } = await sweepLab(4);
    setKnob(store, 'steps', 40);
    const sweepDone = controller.train();
    await untilTwoArmsAt(store, 5);
    await controller.pause();
    await sweepDone;
    const state = store.getState();
    const sweep = state.sweep!;
    expect(sweep.running).toBe(false);
    const paused = sweep.runIds.filter((id) => state.runs[id].status === 'paused');
    expect(paused).toHaveLength(2);
    for (const id of paused) expect(state.checkpoints[id]?.step).toBe(state.runs[id].step);
    expect(sweep.runIds.filter((id) => state.runs[id].step === 0)).toHaveLength(3);
    expect(Object.values(state.runs).some((r) => r.status === 'training')).toBe(false);
    const stepsAtPause = Object.fromEntries(paused.map((id) => [id, state.runs[id].step]));

    await controller.train();
    const after = store.getState();
    for (const id of after.sweep!.runIds) {
      expect(after.runs[id].status).toBe('finished');
      expect(Array.from(after.runs[id].columns.step)).toEqual(Array.from({ length: 41 }, (_, i) => i));
    }
    // The paused arms went on from their saved step in the resumed sweep's workers.
    const resumed = fake.trainers.slice(3).flatMap((t) => t.calls.filter((c) => c.method === 'startRun'));
    for (const id of paused) {
      const call = resumed.find((c) => c.args[0] === id)!;
      expect((call.args[2] as { step: number }).step).toBe(stepsAtPause[id]);
    }
    expect(after.sweep!.position).toBe(5);
  });

  it('on two cores the arms train one after another in the lab’s worker, as before', async () => {
    const { store, fake, controller } = await sweepLab(2);
    const seen = watch(store);
    await controller.train();
    expect(fake.trainers).toHaveLength(1);
    expect(startedRuns(fake.trainers[0])).toEqual(store.getState().sweep!.runIds);
    expect(seen.mostTraining).toBe(1);
    expect(store.getState().sweep!.position).toBe(5);
  });
});
