/**
 * IndexedDB as one subscription to the store: after every state change, what differs from what was
 * last written is written (a run's record, its metrics from the first step that changed, as rows, its
 * samples, its checkpoint, the pretrained base; a run, or a broken run, gone from the store is
 * deleted), so no command can forget a write and none issues one itself. Writes go out without waiting
 * (runWrites.ts); IndexedDB runs them in the order they were issued, so a dropped step is deleted
 * before its replacement is put.
 */
import type { StepMetrics } from '../../core/metrics/stepMetrics';
import type { RolloutSample } from '../../core/rollout/rolloutSample';
import { PRETRAINED_BASE_KEY } from '../db/runDatabase';
import type { LabRun } from '../state/labRun';
import type { LabState, LabStore, PretrainedBase, RunCheckpoint } from '../state/labStore';
import { metricsRow, metricsRows, rowIs, type RunColumns } from '../state/runColumns';
import type { RunWrites } from './runWrites';
import { storedRun } from './storedRuns';

/** What was last written for a run. */
interface WrittenRun {
  /** The run object it was written from (runs are replaced, never changed, when anything changes). */
  run: LabRun;
  record: string;
  /** The rows written, in step order (the columns grow and shrink in place). */
  metrics: StepMetrics[];
  samples: RolloutSample[];
}

export class StorePersistence {
  private runs = new Map<string, WrittenRun>();
  private checkpoints = new Map<string, RunCheckpoint | null>();
  private pretrained: PretrainedBase | null = null;
  private brokenRuns: LabState['brokenRuns'] = [];
  private adopting = false;

  constructor(
    private readonly store: LabStore,
    private readonly writes: RunWrites,
  ) {
    this.adoptState(store.getState());
    store.subscribe((state) => {
      if (!this.adopting) this.sync(state);
    });
  }

  /** Applies `update` to the store as what IndexedDB already holds (a restore): nothing is written for it. */
  adopt(update: () => void): void {
    this.adopting = true;
    try {
      update();
    } finally {
      this.adopting = false;
      this.adoptState(this.store.getState());
    }
  }

  private sync(state: LabState): void {
    for (const run of Object.values(state.runs)) {
      const written = this.runs.get(run.id);
      if (written?.run !== run) this.syncRun(run, written);
    }
    for (const id of [...this.runs.keys()]) {
      if (state.runs[id]) continue;
      this.runs.delete(id);
      this.checkpoints.delete(id);
      this.writes.write((db) => db.deleteRun(id));
    }
    for (const [id, checkpoint] of Object.entries(state.checkpoints)) {
      if (this.checkpoints.get(id) === checkpoint || !state.runs[id]) continue;
      this.checkpoints.set(id, checkpoint);
      this.writes.write((db) => (checkpoint ? db.putCheckpoint(id, checkpoint) : db.deleteCheckpoint(id)));
    }
    if (state.brokenRuns !== this.brokenRuns) {
      const kept = new Set(state.brokenRuns.map((r) => r.id));
      for (const { id } of this.brokenRuns) if (!kept.has(id)) this.writes.write((db) => db.deleteRun(id));
      this.brokenRuns = state.brokenRuns;
    }
    const pretrained = state.pretrainedBase;
    if (pretrained !== this.pretrained) {
      this.pretrained = pretrained;
      if (pretrained) this.writes.write((db) => db.putCheckpoint(PRETRAINED_BASE_KEY, { step: pretrained.steps, blob: pretrained.checkpoint }));
    }
  }

  private syncRun(run: LabRun, written: WrittenRun | undefined): void {
    const stored = storedRun(run);
    const record = JSON.stringify(stored);
    if (record !== written?.record) this.writes.write((db) => db.putRun(stored));
    const before = written?.metrics ?? [];
    const kept = unchangedRows(before, run.columns);
    if (kept < before.length) {
      const fromStep = before[kept].step;
      this.writes.write((db) => db.deleteSteps(run.id, fromStep));
    }
    const metrics = before.slice(0, kept);
    for (let i = kept; i < run.columns.step.length; i++) {
      const row = metricsRow(run.columns, i);
      metrics.push(row);
      this.writes.write((db) => db.putStep(run.id, row));
    }
    const samples = run.samples;
    if (samples !== (written?.samples ?? NO_SAMPLES) && !(written === undefined && samples.length === 0)) {
      this.writes.write((db) => db.putSamples(run.id, samples));
    }
    this.runs.set(run.id, { run, record, metrics, samples });
  }

  private adoptState(state: LabState): void {
    this.runs = new Map(
      Object.values(state.runs).map((run) => [run.id, { run, record: JSON.stringify(storedRun(run)), metrics: metricsRows(run.columns), samples: run.samples }]),
    );
    this.checkpoints = new Map(Object.entries(state.checkpoints));
    this.pretrained = state.pretrainedBase;
    this.brokenRuns = state.brokenRuns;
  }
}

const NO_SAMPLES: RolloutSample[] = [];

/** How many leading rows written before the columns still hold, figure for figure. */
function unchangedRows(before: StepMetrics[], columns: RunColumns): number {
  const shared = Math.min(before.length, columns.step.length);
  let i = 0;
  while (i < shared && rowIs(columns, i, before[i])) i++;
  return i;
}
