/**
 * Deleting a run (ui/controller/runCommands.ts): refused while the run trains, in the lab's worker or as
 * a training status, done once it has stopped, with IndexedDB following the store.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { LabController } from '../src/ui/controller/labController';
import { openRunDatabase } from '../src/ui/db/runDatabase';
import { createLabStore } from '../src/ui/state/labStore';
import { LAB_PRESETS } from '../src/ui/state/presets';
import { copyConfig, defaultUrlState } from '../src/ui/state/urlState';
import { fakeConnector } from './uiFakeTrainer';

describe('deleting a run', () => {
  it('is refused while the run trains and done once it has stopped', async () => {
    const db = await openRunDatabase('ui-run-commands-delete');
    const initial = defaultUrlState();
    initial.preset = 'quick';
    initial.config = { ...copyConfig(LAB_PRESETS.quick.config), steps: 3 };
    const store = createLabStore(initial);
    let clock = 1000;
    const controller = new LabController({ store, connect: fakeConnector().connect, db, baseModelUrl: '/models/base/', now: () => clock++ });
    await controller.start(false);

    const training = controller.train();
    await new Promise<void>((resolve) => {
      const unsubscribe = store.subscribe((s) => {
        if (s.selectedRunId !== null && s.runs[s.selectedRunId]?.status === 'training') {
          unsubscribe();
          resolve();
        }
      });
    });
    const runId = store.getState().selectedRunId!;
    controller.deleteRun(runId);
    expect(store.getState().runs[runId]?.status).toBe('training');

    await training;
    expect(store.getState().runs[runId]?.status).toBe('finished');
    controller.deleteRun(runId);
    expect(store.getState().runs[runId]).toBeUndefined();
    expect(store.getState().runOrder).toEqual([]);
    await controller.flush();
    expect(await db.listRuns()).toEqual([]);
  });
});
