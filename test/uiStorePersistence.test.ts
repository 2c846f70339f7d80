import { describe, expect, it } from 'vitest';
import { PRESETS } from '../src/core/experiment';
import type { CheckpointBlob } from '../src/core/run/checkpointBlob';
import { RunWrites } from '../src/ui/controller/runWrites';
import { StorePersistence } from '../src/ui/controller/storePersistence';
import type { RunDatabase } from '../src/ui/db/runDatabase';
import { makeRun } from '../src/ui/state/labRun';
import { createLabStore, notify, patchRun, putRun, reduceLabEvent, removeRun, setRunCheckpoint, type LabStore } from '../src/ui/state/labStore';
import { truncateColumns } from '../src/ui/state/runColumns';
import { defaultUrlState } from '../src/ui/state/urlState';
import { metricsAt, sampleAt } from './uiFixtures';

/** A RunDatabase that only logs each write, one line each. */
function loggingDatabase(log: string[]): RunDatabase {
  const note = (line: string) => {
    log.push(line);
    return Promise.resolve();
  };
  return {
    listRuns: async () => [],
    putRun: (run) => note(`putRun ${run.id} step ${run.step} ${run.status} saved@${run.checkpointStep}`),
    putStep: (runId, metrics) => note(`putStep ${runId} ${metrics.step}`),
    steps: async () => [],
    deleteSteps: (runId, fromStep) => note(`deleteSteps ${runId} from ${fromStep}`),
    putSamples: (runId, samples) => note(`putSamples ${runId} [${samples.map((s) => s.step).join(',')}]`),
    samples: async () => [],
    putCheckpoint: (runId, checkpoint) => note(`putCheckpoint ${runId} @${checkpoint.step}`),
    checkpoint: async () => null,
    deleteCheckpoint: (runId) => note(`deleteCheckpoint ${runId}`),
    deleteRun: (runId) => note(`deleteRun ${runId}`),
  };
}

const blob: CheckpointBlob = { manifest: {}, weights: new Uint8Array(4) };

function persisted(): { store: LabStore; log: string[]; persistence: StorePersistence; writes: () => string[] } {
  const store = createLabStore(defaultUrlState());
  const log: string[] = [];
  const persistence = new StorePersistence(store, new RunWrites(store, loggingDatabase(log)));
  /** The writes since the last call. */
  const writes = () => log.splice(0);
  return { store, log, persistence, writes };
}

const run = (id: string, fields: Partial<Parameters<typeof makeRun>[0]> = {}) =>
  makeRun({ id, name: id, preset: 'quick', config: PRESETS.quick, createdAt: 1, ...fields });

describe('IndexedDB as a subscription to the store', () => {
  it('writes what each store transition changed, and nothing else', () => {
    const { store, writes } = persisted();

    putRun(store, run('a'));
    expect(writes()).toEqual(['putRun a step 0 idle saved@null']);

    store.setState((s) => reduceLabEvent(s, { type: 'step', runId: 'a', metrics: metricsAt(0, { testAccuracy: 0.1 }), samples: [] }));
    expect(writes()).toEqual(['putStep a 0']);
    store.setState((s) => reduceLabEvent(s, { type: 'status', runId: 'a', status: 'training', step: 0 }));
    expect(writes()).toEqual(['putRun a step 0 training saved@null']);
    for (const [step, samples] of [[1, '1'], [2, '2,1'], [3, '3,2,1']] as const) {
      store.setState((s) => reduceLabEvent(s, { type: 'step', runId: 'a', metrics: metricsAt(step), samples: [sampleAt(step, 1)] }));
      expect(writes()).toEqual([`putRun a step ${step} training saved@null`, `putStep a ${step}`, `putSamples a [${samples}]`]);
    }

    // A checkpoint: the blob and the step the record shows.
    setRunCheckpoint(store, 'a', { step: 2, blob });
    expect(writes()).toEqual(['putRun a step 3 training saved@2', 'putCheckpoint a @2']);

    // Page state that is not a run's: nothing.
    notify(store, 'info', 'hello');
    store.setState({ selectedRunId: 'a', busy: 'Working' });
    expect(writes()).toEqual([]);

    // Continue from the step-2 checkpoint: step 3 is dropped (deleted before it is put again).
    const a = store.getState().runs.a;
    truncateColumns(a.columns, 3);
    patchRun(store, 'a', { step: 2, samples: a.samples.filter((s) => s.step <= 2), revision: a.revision + 1 });
    expect(writes()).toEqual(['putRun a step 2 training saved@2', 'deleteSteps a from 3', 'putSamples a [2,1]']);
    store.setState((s) => reduceLabEvent(s, { type: 'step', runId: 'a', metrics: metricsAt(3), samples: [] }));
    expect(writes()).toEqual(['putRun a step 3 training saved@2', 'putStep a 3']);

    // The worker going back without a truncation first (a reset to step 0) replaces every step.
    store.setState((s) => reduceLabEvent(s, { type: 'step', runId: 'a', metrics: metricsAt(0), samples: [] }));
    expect(writes()).toEqual(['putRun a step 0 training saved@2', 'deleteSteps a from 0', 'putStep a 0']);

    // A reset: no steps, no samples, no checkpoint.
    putRun(store, run('a', { status: 'idle' }));
    setRunCheckpoint(store, 'a', null);
    expect(writes()).toEqual(['putRun a step 0 idle saved@null', 'deleteSteps a from 0', 'putSamples a []', 'deleteCheckpoint a']);

    // A fork (a run added with history, samples and a checkpoint), then the pretrained base.
    putRun(store, run('b', { history: [metricsAt(0), metricsAt(1)], samples: [sampleAt(1, 0)], status: 'paused' }));
    setRunCheckpoint(store, 'b', { step: 1, blob });
    expect(writes()).toEqual(['putRun b step 1 paused saved@null', 'putStep b 0', 'putStep b 1', 'putSamples b [1]', 'putRun b step 1 paused saved@1', 'putCheckpoint b @1']);
    store.setState({ pretrainedBase: { steps: 300, checkpoint: blob } });
    expect(writes()).toEqual(['putCheckpoint base:pretrained @300']);

    // A deleted run: its record, steps, samples and checkpoint go in one delete.
    removeRun(store, 'b');
    expect(writes()).toEqual(['deleteRun b']);
    patchRun(store, 'a', { evaluation: { 0: 0.5 } });
    expect(writes()).toEqual(['putRun a step 0 idle saved@null']);
  });

  it('writes nothing for what it is told IndexedDB already holds (a restore), then follows changes from there', () => {
    const { store, persistence, writes } = persisted();
    const restored = run('r', { history: [metricsAt(0), metricsAt(1)], samples: [sampleAt(1, 1)], status: 'paused' });
    persistence.adopt(() => store.setState({ runs: { r: restored }, runOrder: ['r'], pretrainedBase: { steps: 10, checkpoint: blob } }));
    expect(writes()).toEqual([]);
    store.setState((s) => reduceLabEvent(s, { type: 'step', runId: 'r', metrics: metricsAt(2), samples: [] }));
    expect(writes()).toEqual(['putRun r step 2 paused saved@null', 'putStep r 2']);
  });
});
