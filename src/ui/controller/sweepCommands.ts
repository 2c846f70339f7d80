/**
 * The Nmax sweep's commands (the sweep itself: nmaxSweep.ts): Start, Resume, Train with a sweep
 * preset chosen, Pause of the arms training in workers of their own (armWorker.ts), and one run's
 * row of the matrix evaluated in the lab's worker. What the sweep asks of the lab (SweepHost) is
 * answered here.
 */
import { patchRun, validKnobs, type LabStore } from '../state/labStore';
import type { LabRun } from '../state/labRun';
import type { RunFrom, TrainerWorkerApi } from '../../trainerWorker/protocol';
import { ArmWorker } from './armWorker';
import { queueSweep, runSweep, type SweepArmWorker, type SweepHost } from './nmaxSweep';
import { addRun } from './shownRun';
import { sweepLanes } from './sweepLanes';
import type { ConnectTrainer } from './trainerConnection';
import type { WorkerSession } from './workerSession';

export interface SweepCommandsOptions {
  store: LabStore;
  now: () => number;
  session: WorkerSession;
  /** Puts a run into the lab's worker where it stopped (RunCommands.loadForContinue). */
  loadRun: (api: TrainerWorkerApi, run: LabRun) => Promise<void>;
  /** Where a sweep arm goes on from in a worker of its own (RunStarts.armFrom). */
  armFrom: (runId: string) => Promise<RunFrom | undefined>;
  /** Trains the shown run until it finishes or is paused (the arms one after another in the lab's worker). */
  trainShownRun: () => Promise<void>;
  connect: ConnectTrainer;
  baseModelUrl: string;
  /** Logical cores, for how many sweep arms train at once; default: navigator.hardwareConcurrency. */
  cores?: number;
}

export class SweepCommands {
  private readonly store: LabStore;
  private readonly session: WorkerSession;
  private readonly loadRun: SweepCommandsOptions['loadRun'];
  private readonly armFrom: SweepCommandsOptions['armFrom'];
  private readonly connect: ConnectTrainer;
  private readonly baseModelUrl: string;
  private readonly host: SweepHost;
  /** The sweep arms' own workers while they train (armWorker.ts). */
  private readonly armWorkers = new Set<ArmWorker>();
  /** Pause pressed during a sweep: no arm worker starts until Train resumes it. */
  private pauseRequested = false;
  /** The sweep under way (runSweep), until it returns. */
  private running: Promise<void> = Promise.resolve();

  constructor(options: SweepCommandsOptions) {
    const { store, session } = options;
    this.store = store;
    this.session = session;
    this.loadRun = options.loadRun;
    this.armFrom = options.armFrom;
    this.connect = options.connect;
    this.baseModelUrl = options.baseModelUrl;
    const cores = options.cores ?? (typeof navigator === 'undefined' ? 1 : navigator.hardwareConcurrency || 1);
    this.host = {
      store,
      now: options.now,
      ready: () => session.ready(),
      knobs: () => validKnobs(store),
      addRun: (run) => addRun(store, run),
      train: options.trainShownRun,
      evaluateRun: (runId) => this.evaluateRun(runId),
      lanes: (armsLeft) => sweepLanes(cores, armsLeft),
      openArmWorker: () => this.openArmWorker(),
      pauseRequested: () => this.pauseRequested,
    };
  }

  /** Train with a sweep preset chosen: resumes the current sweep if it stopped short, else queues a new one. */
  async train(): Promise<void> {
    const sweep = this.store.getState().sweep;
    // Arms training side by side leave the lab's worker idle: Train must not queue a second sweep.
    if (sweep?.running) return;
    if (sweep && !sweep.running && sweep.position < sweep.runIds.length) await this.resume();
    else await this.start();
  }

  /** Queues one run per sweep Nmax and trains and evaluates them in order (nmaxSweep.ts). */
  async start(): Promise<void> {
    if (this.store.getState().busy || this.session.isRunning) return;
    this.pauseRequested = false;
    if (queueSweep(this.host)) await this.sweepUnderWay();
  }

  /** Continues a paused or restored sweep from its first unfinished run. */
  async resume(): Promise<void> {
    if (this.store.getState().busy || this.session.isRunning) return;
    this.pauseRequested = false;
    await this.sweepUnderWay();
  }

  /** Pause during a sweep: no further arm starts, and every arm training in a worker of its own stops after its step. */
  async pause(): Promise<void> {
    if (this.store.getState().sweep?.running) this.pauseRequested = true;
    await Promise.all([...this.armWorkers].map((arm) => this.session.guard(arm.pause())));
  }

  /** Resolves once the sweep under way, if any, has returned (after a Pause: once its arms stopped and closed). */
  stopped(): Promise<void> {
    // A sweep that failed has said so to whoever started it.
    return this.running.catch(() => undefined);
  }

  private sweepUnderWay(): Promise<void> {
    this.running = runSweep(this.host);
    return this.running;
  }

  /** Held-out accuracy of a run's latest checkpoint at each sweep Nmax (a row of the matrix). */
  async evaluateRun(runId: string): Promise<void> {
    const state = this.store.getState();
    const run = state.runs[runId];
    if (!run) return;
    const nmaxValues = state.sweep?.nmaxValues ?? state.sweepNmax;
    await this.session.command('Evaluating', async (api) => {
      await this.session.stopRunning();
      if (this.store.getState().loadedRunId !== runId) await this.loadRun(api, run);
      const row = await api.evaluate(nmaxValues);
      patchRun(this.store, runId, { evaluation: row.accuracyByNmax });
    });
  }

  /** A worker of its own for sweep arms, on the backend the lab's worker chose; it leaves the set when closed. */
  private async openArmWorker(): Promise<SweepArmWorker | null> {
    const backend = this.store.getState().backendInfo?.name;
    if (!backend) return null;
    if (this.pauseRequested) return null;
    const arm = await ArmWorker.open({
      store: this.store,
      connect: this.connect,
      baseModelUrl: this.baseModelUrl,
      backend,
      runFrom: (runId) => this.armFrom(runId),
    });
    if (!arm) return null;
    this.armWorkers.add(arm);
    // Pause pressed while this worker was starting.
    if (this.pauseRequested) void arm.pause();
    return {
      trainAndEvaluate: (runId, nmaxValues) => arm.trainAndEvaluate(runId, nmaxValues),
      close: () => {
        this.armWorkers.delete(arm);
        arm.close();
      },
    };
  }
}
