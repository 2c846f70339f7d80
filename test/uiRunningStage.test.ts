/**
 * The loop diagram above the newest answer follows the worker's 'stage' events (issue 26): lit by
 * the stage the shown run's step is in, at the next question once a step ends while training, and
 * unlit when the run stops or another run is shown.
 */
import { describe, expect, it } from 'vitest';
import type { LabEvent } from '../src/trainerWorker/protocol';
import { runningLoopStage } from '../src/ui/panels/loopStage';
import { makeRun } from '../src/ui/state/labRun';
import { createLabStore, putRun, reduceLabEvent, type LabStore } from '../src/ui/state/labStore';
import { LAB_PRESETS } from '../src/ui/state/presets';
import { defaultUrlState } from '../src/ui/state/urlState';
import { metricsAt } from './uiFixtures';

function shownRun(): LabStore {
  const store = createLabStore(defaultUrlState());
  putRun(store, makeRun({ id: 'r1', name: 'run one', preset: 'quick', config: LAB_PRESETS.quick.config, createdAt: 1 }));
  store.setState({ selectedRunId: 'r1' });
  return store;
}

/** What the diagram lights after each event. */
function litAfter(store: LabStore, events: LabEvent[]): (string | null)[] {
  return events.map((event) => {
    store.setState((s) => reduceLabEvent(s, event));
    const s = store.getState();
    return runningLoopStage(s.runningStage, s.selectedRunId);
  });
}

describe('the running loop stage', () => {
  it('lights each stage of a training step, the next question between steps, and nothing once paused', () => {
    const store = shownRun();
    const lit = litAfter(store, [
      { type: 'status', runId: 'r1', status: 'training', step: 0 },
      { type: 'stage', runId: 'r1', step: 1, stage: 'rollouts' },
      { type: 'stage', runId: 'r1', step: 1, stage: 'python' },
      { type: 'stage', runId: 'r1', step: 1, stage: 'rewards' },
      { type: 'stage', runId: 'r1', step: 1, stage: 'update' },
      { type: 'step', runId: 'r1', metrics: metricsAt(1), samples: [] },
      { type: 'stage', runId: 'r1', step: 2, stage: 'rollouts' },
      { type: 'status', runId: 'r1', status: 'paused', step: 1 },
    ]);
    expect(lit).toEqual([null, 'write', 'python', 'reward', 'update', 'question', 'write', null]);
  });

  it('a single Step: lit while it runs, unlit when its status comes', () => {
    const store = shownRun();
    const lit = litAfter(store, [
      { type: 'stage', runId: 'r1', step: 1, stage: 'rollouts' },
      { type: 'stage', runId: 'r1', step: 1, stage: 'advantages' },
      { type: 'step', runId: 'r1', metrics: metricsAt(1), samples: [] },
      { type: 'status', runId: 'r1', status: 'paused', step: 1 },
    ]);
    expect(lit).toEqual(['write', 'update', 'question', null]);
  });

  it("a failed step leaves it unlit; another run's step does not light the shown run's diagram", () => {
    const store = shownRun();
    expect(
      litAfter(store, [
        { type: 'stage', runId: 'r1', step: 1, stage: 'update' },
        { type: 'status', runId: 'r1', status: 'paused', step: 0, message: 'step 1 ran out of memory' },
      ]),
    ).toEqual(['update', null]);
    expect(litAfter(store, [{ type: 'stage', runId: 'other', step: 4, stage: 'rewards' }])).toEqual([null]);
    // A step event of the shown run while another's step runs leaves that one's stage alone.
    store.setState((s) => reduceLabEvent(s, { type: 'step', runId: 'r1', metrics: metricsAt(4), samples: [] }));
    expect(store.getState().runningStage).toEqual({ runId: 'other', step: 4, stage: 'rewards', done: false });
  });
});
