/**
 * Where a run goes on from in a trainer worker: its checkpoint, with the curves recorded after it
 * dropped, against the run's start model as KL reference; without one, its start model (or the
 * base model) at step 0. Reset clears a run back to step 0 here too. The command that starts the
 * run sends it (runCommands.ts); a sweep arm's worker asks here too (armWorker.ts).
 */
import type { ExperimentConfig } from '../../core/experiment';
import type { CheckpointBlob } from '../../core/run/checkpointBlob';
import type { RunFrom } from '../../trainerWorker/protocol';
import { makeRun, type LabRun } from '../state/labRun';
import { notify, patchRun, putRun, setRunCheckpoint, type LabStore, type RunCheckpoint } from '../state/labStore';
import { truncateColumns } from '../state/runColumns';
import type { StartFrom } from '../../core/archive/startFrom';
import type { RunCheckpoints } from './runCheckpoints';
import type { StartModels } from './startModels';

export class RunStarts {
  constructor(
    private readonly store: LabStore,
    private readonly checkpoints: RunCheckpoints,
    private readonly startModels: StartModels,
  ) {}

  /** Where the run goes on from: its stored checkpoint (savedStateToContinue), else its start at step 0; undefined: the base model. */
  async toContinue(run: LabRun): Promise<RunFrom | undefined> {
    return this.runFrom(run.id, await this.savedStateToContinue(run));
  }

  /** Where a sweep arm goes on from in a worker of its own, as toContinue says for the lab's worker. */
  async armFrom(runId: string): Promise<RunFrom | undefined> {
    const run = this.store.getState().runs[runId];
    return run ? this.toContinue(run) : undefined;
  }

  /**
   * From a checkpoint (which continues exactly, against the run's start model as KL reference), else
   * the run's start model (the cold start), else (undefined) the base model: the one pretrained here
   * when chosen, else the worker's own.
   */
  async runFrom(runId: string, from: { step: number; blob: CheckpointBlob } | null): Promise<RunFrom | undefined> {
    const state = this.store.getState();
    const start = state.runs[runId]?.startFrom ?? 'base';
    const pretrained = state.baseModel === 'pretrained' ? state.pretrainedBase : null;
    const startModel = start !== 'base' ? await this.startModels.get(start) : (pretrained?.checkpoint ?? null);
    if (from) return { checkpoint: from.blob, step: from.step, ...(startModel ? { reference: startModel } : {}) };
    if (startModel) return { checkpoint: startModel, step: 0 };
    return undefined;
  }

  /** The run at step 0 with `config` (and `name`): its metrics, samples, evaluation and checkpoint dropped. */
  clearRun(runId: string, config: ExperimentConfig, startFrom?: StartFrom, name?: string): void {
    const run = this.store.getState().runs[runId];
    if (!run) return;
    const cleared = makeRun({ ...run, name: name ?? run.name, config, status: 'idle', history: [], samples: [], startFrom: startFrom ?? run.startFrom });
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

  private dropStepsAfter(runId: string, step: number): void {
    const run = this.store.getState().runs[runId];
    if (!run) return;
    truncateColumns(run.columns, step + 1);
    patchRun(this.store, runId, { step, samples: run.samples.filter((s) => s.step <= step), revision: run.revision + 1 });
  }
}
