/**
 * A run's life in the lab's worker: Train, Step and Slow motion step drive the shown run (a new one
 * from the knobs when none is shown or the shown one has ended; Pause reaches the call through
 * WorkerSession.pause), Reset to step 0, Fork, and deleting a run. Every run the lab's worker
 * trains or evaluates is sent to it here (startInWorker), with its config, from where runStarts.ts says.
 */
import type { ExperimentConfig } from '../../core/experiment';
import type { StepStage } from '../../core/rl/stepStages';
import type { RunFrom, TrainerWorkerApi } from '../../trainerWorker/protocol';
import { makeRun, newRunId, uniqueRunName, type LabRun } from '../state/labRun';
import { notify, removeRun, selectedRun, validKnobs, type LabStore } from '../state/labStore';
import type { RunStarts } from './runStarts';
import { addRun, addRunFromSaved } from './shownRun';
import type { StepsPastCheckpoint } from './stepsPastCheckpoint';
import type { WorkerSession } from './workerSession';

export class RunCommands {
  constructor(
    private readonly store: LabStore,
    private readonly now: () => number,
    private readonly session: WorkerSession,
    private readonly starts: RunStarts,
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
      const state = this.store.getState();
      // A run reset with other knobs is a new run in its place: its name says the knobs it now trains with.
      const others = Object.values(state.runs).filter((r) => r.id !== run.id).map((r) => r.name);
      const name = namedKnobsChanged(run.config, config) ? uniqueRunName(runName(run.preset, config), others) : run.name;
      this.starts.clearRun(run.id, config, state.startFrom, name);
      await this.startInWorker(api, run.id, config, await this.starts.runFrom(run.id, null));
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
      // With other knobs than its source's, the fork's name leads with its own.
      const forkName = namedKnobsChanged(source.config, config) ? `${runName(state.preset, config)} fork@${step} of ${source.name}` : `${source.name} fork@${step}`;
      const fork = addRunFromSaved(this.store, source, saved, {
        id: newRunId(this.now()),
        name: uniqueRunName(forkName, Object.values(state.runs).map((r) => r.name)),
        preset: state.preset,
        config,
        createdAt: this.now(),
        startFrom: saved ? source.startFrom : state.startFrom,
      });
      await this.startInWorker(api, fork.id, config, await this.starts.runFrom(fork.id, saved ?? null));
    });
  }

  /** Deletes a run, unless it trains (IndexedDB follows). */
  deleteRun(id: string): void {
    const state = this.store.getState();
    const run = state.runs[id];
    if (!run || (state.loadedRunId === id && this.session.isRunning) || run.status === 'training') return;
    removeRun(this.store, id);
  }

  /** Puts a run into the lab's worker where it stopped (RunStarts.toContinue). */
  async loadForContinue(api: TrainerWorkerApi, run: LabRun): Promise<void> {
    await this.startInWorker(api, run.id, run.config, await this.starts.toContinue(run));
  }

  /** startRun, with `from` (undefined: the worker's base model); what the worker could not restore is shown as a notice. */
  private async startInWorker(api: TrainerWorkerApi, runId: string, config: ExperimentConfig, from: RunFrom | undefined): Promise<void> {
    this.store.setState({ loadedRunId: null });
    const notices = from ? await api.startRun(runId, config, from) : await api.startRun(runId, config);
    this.store.setState({ loadedRunId: runId, selectedRunId: runId });
    const name = this.store.getState().runs[runId]?.name ?? runId;
    for (const notice of notices) notify(this.store, 'info', `${name}: ${notice}`);
  }

  /** Train or Step: gets the shown run (or a new one) into the worker, then runs `go` until it returns. */
  private async drive(go: (api: TrainerWorkerApi) => Promise<void>): Promise<void> {
    if (this.session.isRunning) return;
    const shown = selectedRun(this.store.getState());
    const ended = !shown || shown.status === 'finished' || shown.status === 'error';
    const run = ended ? await this.startNewRun(shown) : await this.loadShownRun(shown);
    if (run) await this.session.run(run.id, go);
  }

  /**
   * A new run from the knobs, shown and started in the worker at step 0 from its start model; null
   * (with a notice) when the knobs do not pass. The checked knobs go to the worker from here; the
   * run's record in the list holds the same config.
   */
  private async startNewRun(ended: LabRun | null): Promise<LabRun | null> {
    // The question about another run's lost steps waits for its answer first (stepsPastCheckpoint.ts).
    if (this.store.getState().restartQuestion !== null) return null;
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
    const started = await this.session.command(startLabel(run), async (api) => {
      await this.startInWorker(api, run.id, config, await this.starts.runFrom(run.id, null));
    });
    return started ? run : null;
  }

  /** The shown run in the worker where it stopped (asking first when steps past its checkpoint would be lost); null for nothing to train. */
  private async loadShownRun(shown: LabRun): Promise<LabRun | null> {
    let run = shown;
    if (this.store.getState().loadedRunId !== run.id) {
      const kept = await this.stepsPast.runToTrain(run);
      if (!kept) return null;
      run = kept;
    }
    const label = run.checkpointStep === null ? startLabel(run) : 'Loading the run from its checkpoint…';
    const loaded = await this.session.command(label, async (api) => {
      if (this.store.getState().loadedRunId !== run.id) await this.loadForContinue(api, run);
    });
    return loaded ? run : null;
  }
}

/** What the lab shows while the worker tests a run's start model on the held-out set (its step 0). */
function startLabel(run: LabRun): string {
  return `Starting the run: held-out test of the ${run.startFrom === 'coldstart' ? 'cold-start' : 'base'} model…`;
}

function runName(preset: string, config: ExperimentConfig): string {
  return `${preset} Nmax ${config.nmax} ${config.algorithm} seed ${config.seed}`;
}

/** Whether a knob a run's name states (runName) differs between two configs. */
function namedKnobsChanged(before: ExperimentConfig, after: ExperimentConfig): boolean {
  return before.nmax !== after.nmax || before.algorithm !== after.algorithm || before.seed !== after.seed;
}
