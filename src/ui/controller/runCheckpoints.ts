/**
 * A run's saved state (its checkpoint) on the page side: as last saved, in this page or in
 * IndexedDB; saved now from the worker that holds the run; and the loaded run's saved after every
 * step, one save at a time, so a page closed at any moment loses at most the step in progress.
 */
import type { TrainerWorkerApi } from '../../trainerWorker/protocol';
import { metaStep } from '../../core/archive/checkpointFile';
import type { RunDatabase } from '../db/runDatabase';
import { notify, setRunCheckpoint, type LabStore, type RunCheckpoint } from '../state/labStore';

export class RunCheckpoints {
  /** The loaded run's state being saved, one save at a time; `saveQueued` when a save waits behind it. */
  private saving: Promise<void> = Promise.resolve();
  private saveQueued = false;

  constructor(
    private readonly store: LabStore,
    /** null when IndexedDB is unavailable: the loaded run is not saved after every step. */
    private readonly db: RunDatabase | null,
    /** The lab's worker, if one is connected. */
    private readonly api: () => TrainerWorkerApi | null,
  ) {}

  /** The run's checkpoint as last saved: in this page, else in IndexedDB; null when it has none. */
  async stored(runId: string): Promise<RunCheckpoint | null> {
    const here = this.store.getState().checkpoints[runId];
    if (here !== undefined) return here;
    return this.db ? this.db.checkpoint(runId) : null;
  }

  /** The loaded run's state saved now, kept as its checkpoint. */
  async saveLoaded(api: TrainerWorkerApi, runId: string): Promise<RunCheckpoint> {
    const blob = await api.saveCheckpoint();
    // The worker may be mid-step when it answers: its own record of the step is the one to trust.
    const step = metaStep(blob.manifest) ?? this.store.getState().runs[runId]?.step ?? 0;
    const saved = { step, blob };
    setRunCheckpoint(this.store, runId, saved);
    return saved;
  }

  /** The run's checkpoint: saved now when `api`'s worker holds the run, else as last saved. */
  latest(api: TrainerWorkerApi, runId: string): Promise<RunCheckpoint | null> {
    return this.store.getState().loadedRunId === runId ? this.saveLoaded(api, runId) : this.stored(runId);
  }

  /**
   * Saves the loaded run's state unless what is saved is at its step already. One save at a time; a
   * request made during a save is served once it ends (so the last step is never left unsaved), and
   * requests made meanwhile are one.
   */
  saveLoadedRun(): Promise<void> {
    if (this.saveQueued) return this.saving;
    this.saveQueued = true;
    this.saving = this.saving.then(async () => {
      this.saveQueued = false;
      const api = this.api();
      const state = this.store.getState();
      const runId = state.loadedRunId;
      const run = runId === null ? undefined : state.runs[runId];
      if (!api || !this.db || !run || state.checkpoints[run.id]?.step === run.step) return;
      try {
        await this.saveLoaded(api, run.id);
      } catch (error) {
        notify(this.store, 'error', `checkpoint not saved: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
    return this.saving;
  }
}
