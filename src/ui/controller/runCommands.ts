/**
 * A run's life in the lab's worker: Train, Step and Slow motion step drive the shown run (a new one
 * from the knobs when none is shown or the shown one has ended; Pause reaches the call through
 * WorkerSession.pause), Reset to step 0, Fork, and deleting a run.
 */
import type { ExperimentConfig } from '../../core/experiment';
import type { StepStage } from '../../core/rl/stepStages';
import type { TrainerWorkerApi } from '../../trainerWorker/protocol';
import { makeRun, newRunId, uniqueRunName, type LabRun } from '../state/labRun';
import { notify, removeRun, selectedRun, type LabStore } from '../state/labStore';
import type { RunLoader } from './runLoader';
import { addRun, addRunFromSaved } from './shownRun';
import type { StepsPastCheckpoint } from './stepsPastCheckpoint';
import { validKnobs } from './validKnobs';
import type { WorkerSession } from './workerSession';

export class RunCommands {
  constructor(
    private readonly store: LabStore,
    private readonly now: () => number,
    private readonly session: WorkerSession,
    private readonly loader: RunLoader,
    private readonly stepsPast: StepsPastCheckpoint,
  ) {}

  /** Trains the shown run to its budget (continuing it from its checkpoint if needed; a new one from the knobs if there is none). */
  async train(): Promise<void> {
    await this.drive((api) => api.train());
  }

  /** Exactly one RL step of the shown run (a new one if there is none). */
  async step(): Promise<void> {
    await this.drive((api) => api.step());
  }

  /** One RL step in slow motion: `onStage` gets each stage's data and the step waits for its promise. */
  async slowMotionStep(onStage: (stage: StepStage) => Promise<void>): Promise<void> {
    await this.drive((api) => api.slowMotionStep(onStage));
  }

  /**
   * The shown run back to step 0 from the base model, with the knobs as they are now (so: pause,
   * change Nmax, Reset). Its metrics, samples and checkpoint are dropped. (The worker's own reset
   * returns to where the run started, which for a continued run is its checkpoint, not step 0.)
   */
  async reset(): Promise<void> {
    const run = selectedRun(this.store.getState());
    if (!run) return;
    const config = validKnobs(this.store);
    if (!config) return;
    await this.session.command('Resetting', async (api) => {
      await this.session.stopRunning();
      this.loader.clearRun(run.id, config, this.store.getState().startFrom);
      await this.loader.startInWorker(api, run.id, config, null);
    });
  }

  /** A new run from the shown run's checkpoint and metrics so far, with the knobs as they are now. */
  async fork(): Promise<void> {
    const source = selectedRun(this.store.getState());
    if (!source) return;
    const config = validKnobs(this.store);
    if (!config) return;
    await this.session.command('Forking', async (api) => {
      await this.session.stopRunning();
      const saved = await this.session.checkpoints.latest(api, source.id);
      const step = saved?.step ?? 0;
      const state = this.store.getState();
      const fork = addRunFromSaved(this.store, source, saved, {
        id: newRunId(this.now()),
        name: `${source.name} fork@${step}`,
        preset: state.preset,
        config,
        createdAt: this.now(),
        startFrom: saved ? source.startFrom : state.startFrom,
      });
      await this.loader.startInWorker(api, fork.id, config, saved ?? null);
    });
  }

  /** Deletes a run, unless it trains (IndexedDB follows). */
  deleteRun(id: string): void {
    const state = this.store.getState();
    const run = state.runs[id];
    if (!run || (state.loadedRunId === id && this.session.isRunning) || run.status === 'training') return;
    removeRun(this.store, id);
  }

  /** Train or Step: gets the shown run (or a new one) into the worker, then runs `go` until it returns. */
  private async drive(go: (api: TrainerWorkerApi) => Promise<void>): Promise<void> {
    if (this.session.isRunning) return;
    const shown = selectedRun(this.store.getState());
    const target = !shown || shown.status === 'finished' || shown.status === 'error' ? this.newRun(shown) : shown;
    if (!target) return;
    let run = target;
    if (this.store.getState().loadedRunId !== run.id) {
      const kept = await this.stepsPast.runToTrain(run);
      if (!kept) return;
      run = kept;
    }
    const startModel = run.startFrom === 'coldstart' ? 'cold-start model' : 'base model';
    const label = run.checkpointStep === null ? `Starting the run: held-out test of the ${startModel}…` : 'Loading the run from its checkpoint…';
    const loaded = await this.session.command(label, async (api) => {
      if (this.store.getState().loadedRunId !== run.id) await this.loader.loadForContinue(api, run);
    });
    if (!loaded) return;
    await this.session.run(run.id, go);
  }

  /** A new run from the knobs, shown; null (with a notice) when the knobs do not pass. */
  private newRun(ended: LabRun | null): LabRun | null {
    const config = validKnobs(this.store);
    if (!config) return null;
    const state = this.store.getState();
    const name = uniqueRunName(runName(state.preset, config), Object.values(state.runs).map((r) => r.name));
    // A finished run cannot train on; say that a new one starts rather than add a look-alike silently.
    if (ended) notify(this.store, 'info', `"${ended.name}" ${ended.status === 'finished' ? `finished at step ${ended.step}` : 'stopped with an error'}: a new run, "${name}", starts from the knobs (Fork continues a run with a larger step budget)`);
    const run = makeRun({
      id: newRunId(this.now()),
      name,
      preset: state.preset,
      config,
      createdAt: this.now(),
      startFrom: state.startFrom,
    });
    addRun(this.store, run);
    return run;
  }
}

function runName(preset: string, config: ExperimentConfig): string {
  return `${preset} Nmax ${config.nmax} ${config.algorithm} seed ${config.seed}`;
}
