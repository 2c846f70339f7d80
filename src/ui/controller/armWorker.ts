/**
 * A sweep arm's own trainer worker: while the lab's worker keeps the shown run, an ArmWorker trains
 * sweep arms one after another, each to its step budget, then evaluates it at every sweep Nmax.
 * Its events go into the store as the lab worker's do (so every arm's curves grow on the charts as
 * it trains) and its run's state is saved after every step, so Pause or a closed page loses at most
 * the step in progress. Only its own run's events count: its 'backend' event and its idle status
 * at start describe the worker, not the lab.
 */
import type { BackendName, LabEvent, RunFrom, RunStatus, TrainerWorkerApi } from '../../trainerWorker/protocol';
import { metaStep } from '../../core/archive/checkpointFile';
import { notify, patchRun, reduceLabEvent, setRunCheckpoint, type LabStore } from '../state/labStore';
import { settledStatus } from './settledStatus';
import type { ConnectTrainer, TrainerConnection } from './trainerConnection';

export interface ArmWorkerHost {
  store: LabStore;
  connect: ConnectTrainer;
  baseModelUrl: string;
  /** The backend the lab's worker chose: an arm's worker takes it as is, without a probe of its own. */
  backend: BackendName;
  /** Where the run goes on from (its checkpoint, or its start model), with what follows the checkpoint dropped; undefined: the base model at step 0. */
  runFrom(runId: string): Promise<RunFrom | undefined>;
}

export class ArmWorker {
  private runId: string | null = null;
  private saving: Promise<void> = Promise.resolve();
  private saveQueued = false;
  private crashed: string | null = null;
  /** Set by Pause: the arm under way stops after its step, and one still loading does not start. */
  private pausing = false;

  private constructor(
    private readonly host: ArmWorkerHost,
    private readonly connection: TrainerConnection,
  ) {}

  /** A worker started on the lab's backend with the base model loaded; null (and a notice) if it could not start. */
  static async open(host: ArmWorkerHost): Promise<ArmWorker | null> {
    let arm: ArmWorker | null = null;
    const connection = host.connect((message) => {
      if (arm) arm.crashed = message;
      notify(host.store, 'error', `a sweep arm's trainer: ${message}`);
    }, 'sweepArm');
    arm = new ArmWorker(host, connection);
    const worker = arm;
    try {
      await connection.api.init({ backend: host.backend, baseModelUrl: host.baseModelUrl }, (event) => worker.onEvent(event));
      return worker;
    } catch (error) {
      notify(host.store, 'error', `a sweep arm's trainer could not start: ${error instanceof Error ? error.message : String(error)}`);
      connection.close();
      return null;
    }
  }

  private get api(): TrainerWorkerApi {
    return this.connection.api;
  }

  /**
   * Trains the run to its budget and evaluates it at `nmaxValues`. Resolves to how its training
   * stopped ('finished' once evaluated too; 'paused' after Pause; 'error' on a failure, with a notice).
   */
  async trainAndEvaluate(runId: string, nmaxValues: number[]): Promise<RunStatus> {
    this.runId = runId;
    const { store } = this.host;
    try {
      const run = store.getState().runs[runId];
      if (!run) return 'error';
      if (this.pausing) return 'paused';
      const from = await this.host.runFrom(runId);
      const notices = from ? await this.api.startRun(runId, run.config, from) : await this.api.startRun(runId, run.config);
      for (const notice of notices) notify(store, 'info', `${run.name}: ${notice}`);
      // A Pause that came while the run was loading: the worker had nothing to pause yet.
      if (this.pausing) return 'paused';
      await this.api.train();
      const status = await settledStatus(store, runId);
      await this.save();
      if (status !== 'finished') return status ?? 'error';
      const row = await this.api.evaluate(nmaxValues);
      patchRun(store, runId, { evaluation: row.accuracyByNmax });
      return 'finished';
    } catch (error) {
      if (!this.crashed) notify(store, 'error', error instanceof Error ? error.message : String(error));
      return 'error';
    }
  }

  pause(): Promise<void> {
    this.pausing = true;
    return this.api.pause();
  }


  close(): void {
    this.connection.close();
  }

  private onEvent(event: LabEvent): void {
    const { store } = this.host;
    const own = (event.type === 'step' || event.type === 'status') && event.runId !== null && event.runId === this.runId;
    if (own || event.type === 'error') store.setState((s) => reduceLabEvent(s, event));
    if (own && event.type === 'step' && event.metrics.step > 0) void this.save();
  }

  /** Saves the run's state, one save at a time; requests made during a save are one, served after it. */
  private save(): Promise<void> {
    if (this.saveQueued) return this.saving;
    this.saveQueued = true;
    this.saving = this.saving.then(async () => {
      this.saveQueued = false;
      const runId = this.runId;
      const { store } = this.host;
      const run = runId === null ? undefined : store.getState().runs[runId];
      if (!run || store.getState().checkpoints[run.id]?.step === run.step) return;
      try {
        const blob = await this.api.saveCheckpoint();
        setRunCheckpoint(store, run.id, { step: metaStep(blob.manifest) ?? run.step, blob });
      } catch (error) {
        notify(store, 'error', `checkpoint not saved: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
    return this.saving;
  }
}
