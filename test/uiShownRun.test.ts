/**
 * addRunFromSaved (ui/controller/shownRun.ts), the run Fork and the restart question's "keep" make: it goes
 * on where its source was saved, so it holds the source's curves and samples up to the saved step
 * and no further, with that checkpoint; with nothing saved, it starts at step 0 without them.
 */
import { describe, expect, it } from 'vitest';
import { addRunFromSaved } from '../src/ui/controller/shownRun';
import { makeRun } from '../src/ui/state/labRun';
import { createLabStore, putRun, type RunCheckpoint } from '../src/ui/state/labStore';
import { LAB_PRESETS } from '../src/ui/state/presets';
import { copyConfig, defaultUrlState } from '../src/ui/state/urlState';
import { metricsAt, sampleAt } from './uiFixtures';

const config = copyConfig(LAB_PRESETS.quick.config);
const fields = { id: 'copy', name: 'copy', preset: 'quick', config, createdAt: 2, startFrom: 'base' as const };

function withSource() {
  const store = createLabStore(defaultUrlState());
  const source = makeRun({
    id: 'source',
    name: 'source',
    preset: 'quick',
    config,
    createdAt: 1,
    history: [0, 1, 2, 3, 4, 5].map((step) => metricsAt(step)),
    samples: [1, 2, 3, 4, 5].map((step) => sampleAt(step, 1)),
    status: 'finished',
  });
  putRun(store, source);
  return { store, source };
}

describe('addRunFromSaved', () => {
  it("holds the source's curves and samples up to the saved step, with that checkpoint, shown and paused", () => {
    const { store, source } = withSource();
    const saved = { step: 3, blob: { manifest: { step: 3 }, weights: new ArrayBuffer(8) } } as unknown as RunCheckpoint;
    const run = addRunFromSaved(store, source, saved, fields);
    expect(run.columns.step).toEqual([0, 1, 2, 3]);
    expect(run.samples.map((s) => s.step)).toEqual([1, 2, 3]);
    expect(run).toMatchObject({ id: 'copy', step: 3, status: 'paused' });
    const state = store.getState();
    expect(state.selectedRunId).toBe('copy');
    expect(state.runs.copy?.columns.step).toEqual([0, 1, 2, 3]);
    expect(state.checkpoints.copy).toBe(saved);
    expect(state.runs.source.columns.step).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('starts at step 0 without curves or a checkpoint when nothing was saved', () => {
    const { store, source } = withSource();
    const run = addRunFromSaved(store, source, null, fields);
    expect(run.columns.step).toEqual([]);
    expect(run.samples).toEqual([]);
    expect(run.step).toBe(0);
    expect(store.getState().checkpoints.copy).toBeUndefined();
  });
});
