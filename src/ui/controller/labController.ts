/**
 * The lab's commands, as the panels call them: what Train, Pause, Step, Reset, Fork, a sweep, a
 * backend switch, pretraining and the file buttons do. Each feature lives in a file of its own,
 * named at its section below, over one WorkerSession (workerSession.ts). Data flows one way: a
 * command reads the store, talks to the worker through the TrainerWorkerApi, and the worker's
 * LabEvents come back into the store (reduceLabEvent). Commands only change the store: IndexedDB
 * follows it by one subscription (storePersistence.ts). No knob reaches the worker unless
 * configErrors passes it (validKnobs, labStore.ts).
 */
import { fetchCheckpoint } from '../../browser/checkpointFetch';
import type { ModelAnswer } from '../../core/rollout/answerQuestion';
import type { PassAtOneSettings } from '../../core/eval/evalReport';
import type { StepStage } from '../../core/rl/stepStages';
import type { CheckpointBlob } from '../../core/run/checkpointBlob';
import type { ImportFile } from '../../core/archive/checkpointFile';
import type { RunDatabase } from '../db/runDatabase';
import { validKnobs, type LabState, type LabStore } from '../state/labStore';
import { labPreset } from '../state/presets';
import { askShownModel, type AskHost, type AskListener } from './askModelJob';
import { exportRunCheckpoint } from './checkpointTransfer';
import { evaluateInWorker, stopEvaluation, type EvaluationHost, type EvaluationSource } from './evaluationJob';
import { pretrainBase } from './pretraining';
import { restoreLab, type UrlRun } from './restoreLab';
import { RunCommands } from './runCommands';
import { RunStarts } from './runStarts';
import { exportRunFile, importRunOrCheckpoint, type RunTransferHost } from './runTransfer';
import { RunWrites } from './runWrites';
import { addRun, showRun } from './shownRun';
import { StartModels } from './startModels';
import { StepsPastCheckpoint, type RestartAnswer } from './stepsPastCheckpoint';
import { StorePersistence } from './storePersistence';
import { SweepCommands } from './sweepCommands';
import type { ConnectTrainer } from './trainerConnection';
import { WorkerSession } from './workerSession';

export interface LabControllerOptions {
  store: LabStore;
  connect: ConnectTrainer;
  /** null when IndexedDB is unavailable: the lab works, runs just do not last. */
  db: RunDatabase | null;
  /** The shipped base model's folder; the other start models sit beside it (startFrom.ts). */
  baseModelUrl: string;
  now?: () => number;
  /** How a start model is fetched; default: the two files from the app's origin. */
  fetchModel?: (url: string) => Promise<CheckpointBlob>;
  /** Logical cores, for how many sweep arms train at once; default: navigator.hardwareConcurrency. */
  cores?: number;
}

export class LabController {
  private readonly store: LabStore;
  private readonly writes: RunWrites;
  private readonly persistence: StorePersistence;
  private readonly session: WorkerSession;
  private readonly stepsPast: StepsPastCheckpoint;
  private readonly runs: RunCommands;
  private readonly sweep: SweepCommands;
  private readonly evaluationHost: EvaluationHost;
  private readonly transferHost: RunTransferHost;
  private readonly askHost: AskHost;

  constructor(options: LabControllerOptions) {
    const { store, connect, baseModelUrl } = options;
    const now = options.now ?? (() => Date.now());
    this.store = store;
    this.writes = new RunWrites(store, options.db);
    this.persistence = new StorePersistence(store, this.writes);
    const session = new WorkerSession(store, connect, baseModelUrl, options.db);
    const { checkpoints } = session;
    const startModels = new StartModels(baseModelUrl, options.fetchModel ?? ((url) => fetchCheckpoint(url)));
    const starts = new RunStarts(store, checkpoints, startModels);
    this.session = session;
    this.stepsPast = new StepsPastCheckpoint(store, now, checkpoints);
    this.runs = new RunCommands(store, now, session, starts, this.stepsPast);
    this.sweep = new SweepCommands({
      store,
      now,
      session,
      loadRun: (api, run) => this.runs.loadForContinue(api, run),
      armFrom: (runId) => starts.armFrom(runId),
      trainShownRun: () => this.runs.train(),
      connect,
      baseModelUrl,
      cores: options.cores,
    });
    this.evaluationHost = {
      store,
      now,
      runCheckpoint: (api, runId) => checkpoints.latest(api, runId),
      startModel: (start) => startModels.get(start),
    };
    this.transferHost = {
      store,
      now,
      runCheckpoint: async (runId) => {
        const api = session.api;
        if (api && store.getState().loadedRunId === runId) return session.guard(checkpoints.saveLoaded(api, runId));
        return checkpoints.stored(runId);
      },
      knobs: () => validKnobs(store),
      addRun: (run) => addRun(store, run),
      selectRun: (runId) => showRun(store, runId),
    };
    this.askHost = {
      store,
      storedCheckpoint: (runId) => checkpoints.stored(runId),
      startModel: (start) => startModels.get(start),
    };
  }

  /** Brings back stored runs and shows the one the URL names (restoreLab.ts), starts the worker, and trains if asked. */
  async start(autostart: boolean, url: UrlRun = { runId: null, urlNamesSettings: false }): Promise<void> {
    await restoreLab(this.store, this.writes, this.persistence, url);
    this.session.start();
    if (autostart && (await this.session.ready())) await this.train();
  }

  // ---- Train, Step, Pause, Reset, Fork, Delete (runCommands.ts, stepsPastCheckpoint.ts) ---------

  /**
   * Trains the shown run (continuing it from its checkpoint if needed), or a new one from the knobs;
   * with a sweep preset chosen, queues (or resumes) the Nmax sweep instead.
   */
  async train(): Promise<void> {
    if (labPreset(this.store.getState().preset)?.sweepNmax !== undefined) await this.sweep.train();
    else await this.runs.train();
  }

  step(): Promise<void> {
    return this.runs.step();
  }

  slowMotionStep(onStage: (stage: StepStage) => Promise<void>): Promise<void> {
    return this.runs.slowMotionStep(onStage);
  }

  /** Stops a sweep's arms after their step, and the Train or Step under way in the lab's worker. */
  async pause(): Promise<void> {
    await this.sweep.pause();
    await this.session.pause();
  }

  reset(): Promise<void> {
    return this.runs.reset();
  }

  fork(): Promise<void> {
    return this.runs.fork();
  }

  answerRestart(answer: RestartAnswer): void {
    this.stepsPast.answer(answer);
  }

  deleteRun(id: string): void {
    this.runs.deleteRun(id);
  }

  /** Forgets a stored run that cannot be shown (IndexedDB follows). */
  deleteBrokenRun(id: string): void {
    this.store.setState((s) => ({ brokenRuns: s.brokenRuns.filter((r) => r.id !== id) }));
  }

  // ---- Which run is shown (shownRun.ts) ---------------------------------------------------------

  selectRun(id: string): void {
    showRun(this.store, id);
  }

  /** Starts a fresh run from the knobs at the next Train or Step. */
  newRunFromKnobs(): void {
    this.store.setState({ selectedRunId: null });
  }

  // ---- Backend (workerSession.ts) ---------------------------------------------------------------

  switchBackend(choice: LabState['backend']): Promise<void> {
    return this.session.switchBackend(choice);
  }

  // ---- Nmax sweep (sweepCommands.ts) -------------------------------------------------------------

  startSweep(): Promise<void> {
    return this.sweep.start();
  }

  resumeSweep(): Promise<void> {
    return this.sweep.resume();
  }

  evaluateRun(runId: string): Promise<void> {
    return this.sweep.evaluateRun(runId);
  }

  // ---- pass@1 (evaluationJob.ts), Ask the model (askModelJob.ts), pretraining (pretraining.ts) --

  evaluatePassAtOne(source: EvaluationSource, settings: PassAtOneSettings): Promise<void> {
    return evaluateInWorker(this.session, this.evaluationHost, source, settings);
  }

  cancelEvaluation(): Promise<void> {
    return stopEvaluation(this.session, this.store);
  }

  askModel(question: string, greedy: boolean, listener: AskListener): Promise<ModelAnswer | null> {
    return askShownModel(this.session, this.askHost, question, greedy, listener);
  }

  pretrain(options: { steps: number; seed: number; toolPrior: number }): Promise<void> {
    return pretrainBase(this.session, this.store, options);
  }

  // ---- Files (checkpointTransfer.ts, runTransfer.ts) --------------------------------------------

  /** The run's checkpoint as a file's text. */
  exportCheckpoint(runId: string): Promise<string | null> {
    return exportRunCheckpoint(this.transferHost, runId);
  }

  /** The run as one file: config, curves, samples and its whole run state. */
  exportRun(runId: string): Promise<string | null> {
    return exportRunFile(this.transferHost, runId);
  }

  importFiles(files: ImportFile[]): boolean {
    return importRunOrCheckpoint(this.transferHost, files);
  }

  /** Resolves once every IndexedDB write issued so far has landed. */
  async flush(): Promise<void> {
    await this.writes.flush();
  }

  /**
   * The lab moves to another tab (labTab.ts): training stops after the step under way, the loaded
   * run's state and each sweep arm's are saved, then the workers close (an evaluation or pretraining
   * under way with them). The other tab reads the runs from IndexedDB as a reload would; its reads
   * come after the writes issued here, which IndexedDB runs in the order they were made.
   */
  async leave(): Promise<void> {
    await this.sweep.pause();
    await this.session.stopRunning();
    await this.sweep.stopped();
    await this.session.checkpoints.saveLoadedRun();
    this.session.close();
  }
}
