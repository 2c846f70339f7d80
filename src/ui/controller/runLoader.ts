/**
 * Putting a run into a trainer worker where it stopped: from its checkpoint, with the curves
 * recorded after it dropped, against the run's start model as KL reference; without one, from its
 * start model (or the base model) at step 0. Reset clears a run back to step 0 here too.
 */
import type { ExperimentConfig } from '../../core/experiment';
import type { CheckpointBlob } from '../../core/run/checkpointBlob';
import type { RunFrom, TrainerWorkerApi } from '../../trainerWorker/protocol';
import { makeRun, type LabRun } from '../state/labRun';
import { notify, patchRun, putRun, setRunCheckpoint, type LabStore, type RunCheckpoint } from '../state/labStore';
import { truncateColumns } from '../state/runColumns';
import type { StartFrom } from '../../core/archive/startFrom';
import type { RunCheckpoints } from './runCheckpoints';
import type { StartModels } from './startModels';

export class RunLoader {
  constructor(
    private readonly store: LabStore,
    private readonly checkpoints: RunCheckpoints,
    private readonly startModels: StartModels,
  ) {}

  /** Puts a run into the worker where it stopped (savedStateToContinue). */
  async loadForContinue(api: TrainerWorkerApi, run: LabRun): Promise<void> {
    await this.startInWorker(api, run.id, run.config, await this.savedStateToContinue(run));
  }

  /** Where a sweep arm goes on from in a worker of its own, as loadForContinue does in the lab's worker. */
  async armFrom(runId: string): Promise<RunFrom | undefined> {
    const run = this.store.getState().runs[runId];
    return run ? this.runFrom(runId, await this.savedStateToContinue(run)) : undefined;
  }

  /**
   * startRun, from a checkpoint (which continues exactly, against the run's start model as KL
   * reference), the run's start model (the cold start), or the base model (the one pretrained here
   * when chosen). What the worker could not restore is shown as a notice.
   */
  async startInWorker(api: TrainerWorkerApi, runId: string, config: ExperimentConfig, from: { step: number; blob: CheckpointBlob } | null): Promise<void> {
    const runFrom = await this.runFrom(runId, from);
    this.store.setState({ loadedRunId: null });
    const notices = runFrom ? await api.startRun(runId, config, runFrom) : await api.startRun(runId, config);
    this.store.setState({ loadedRunId: runId, selectedRunId: runId });
    const name = this.store.getState().runs[runId]?.name ?? runId;
    for (const notice of notices) notify(this.store, 'info', `${name}: ${notice}`);
  }

  /** The run at step 0 with `config`: its metrics, samples, evaluation and checkpoint dropped. */
  clearRun(runId: string, config: ExperimentConfig, startFrom?: StartFrom): void {
    const run = this.store.getState().runs[runId];
    if (!run) return;
    const cleared = makeRun({ ...run, config, status: 'idle', history: [], samples: [], startFrom: startFrom ?? run.startFrom });
    putRun(this.store, { ...cleared, revision: run.revision + 1, evaluation: null });
    setRunCheckpoint(this.store, runId, null);
  }

  /**
   * The run's stored checkpoint, with the metrics recorded after it dropped; or null, the run
   * cleared to go on from its start model at step 0 when it has none.
   */
  private async savedStateToContinue(run: LabRun): Promise<RunCheckpoint | null> {
    const saved = await this.checkpoints.stored(run.id);
    if (saved) {
      this.dropStepsAfter(run.id, saved.step);
      return saved;
    }
    if (run.columns.step.some((step) => step > 0)) notify(this.store, 'info', `${run.name} had no saved checkpoint: it restarts from step 0`);
    this.clearRun(run.id, run.config);
    return null;
  }

  /** The checkpoint against the run's start model as KL reference, else its start model at step 0, else (undefined) the base model. */
  private async runFrom(runId: string, from: { step: number; blob: CheckpointBlob } | null): Promise<RunFrom | undefined> {
    const state = this.store.getState();
    const start = state.runs[runId]?.startFrom ?? 'base';
    const pretrained = state.baseModel === 'pretrained' ? state.pretrainedBase : null;
    const startModel = start !== 'base' ? await this.startModels.get(start) : (pretrained?.checkpoint ?? null);
    if (from) return { checkpoint: from.blob, step: from.step, ...(startModel ? { reference: startModel } : {}) };
    if (startModel) return { checkpoint: startModel, step: 0 };
    return undefined;
  }

  private dropStepsAfter(runId: string, step: number): void {
    const run = this.store.getState().runs[runId];
    if (!run) return;
    truncateColumns(run.columns, step + 1);
    patchRun(this.store, runId, { step, samples: run.samples.filter((s) => s.step <= step), revision: run.revision + 1 });
  }
}
