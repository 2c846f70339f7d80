/**
 * The lab's trainer worker seen from the page: the one session every command goes through. Its
 * start, its crash, its replacement on another backend; one command at a time, shown as busy; the
 * Train or Step call under way. The worker's LabEvents go into the store (reduceLabEvent), and after
 * every step the loaded run's state is saved (runCheckpoints.ts).
 */
import type { LabEvent, TrainerWorkerApi } from '../../trainerWorker/protocol';
import type { RunDatabase } from '../db/runDatabase';
import { notify, reduceLabEvent, type LabState, type LabStore } from '../state/labStore';
import { RunCheckpoints } from './runCheckpoints';
import { settledStatus } from './settledStatus';
import type { ConnectTrainer, TrainerConnection } from './trainerConnection';

export class WorkerSession {
  private connection: TrainerConnection | null = null;
  private started: Promise<boolean> = Promise.resolve(false);
  /** The pending worker.train() or worker.step() call, while one runs. */
  private running: Promise<void> | null = null;
  /** Set by close: the lab has left this tab. */
  private closed = false;
  readonly checkpoints: RunCheckpoints;

  constructor(
    private readonly store: LabStore,
    private readonly connect: ConnectTrainer,
    private readonly baseModelUrl: string,
    db: RunDatabase | null,
  ) {
    this.checkpoints = new RunCheckpoints(store, db, () => this.api);
  }

  /** The worker's commands; null before the first start. */
  get api(): TrainerWorkerApi | null {
    return this.connection?.api ?? null;
  }

  /** Whether a Train or Step call is under way. */
  get isRunning(): boolean {
    return this.running !== null;
  }

  /** Resolves once the worker started now is ready (true), or could not start (false). */
  ready(): Promise<boolean> {
    return this.started;
  }

  /** Starts a worker on the store's backend; a crash or a failed start shows as worker 'failed' with a notice. Not once closed. */
  start(): void {
    if (this.closed) return;
    this.store.setState({ worker: 'starting', backendInfo: null, timedStep: null, loadedRunId: null });
    const connection = this.connect((message) => {
      if (this.connection !== connection) return;
      this.store.setState({ worker: 'failed', busy: null });
      notify(this.store, 'error', message);
    });
    this.connection = connection;
    const options = { backend: this.store.getState().backend, baseModelUrl: this.baseModelUrl };
    this.started = connection.api.init(options, (event) => this.onEvent(event)).then(
      (info) => {
        if (this.connection !== connection) return false;
        this.store.setState({ worker: 'ready', backendInfo: info });
        return true;
      },
      (error: unknown) => {
        if (this.connection !== connection) return false;
        this.store.setState({ worker: 'failed' });
        notify(this.store, 'error', `the trainer could not start: ${messageOf(error)}`);
        return false;
      },
    );
  }

  /**
   * Every worker event into the store; after every step, the run's state is saved, so a page closed
   * at any moment loses at most the step in progress (about 0.14 s a step in Chromium, 4% of the
   * quick preset's: docs/checkpoints.md).
   */
  private onEvent(event: LabEvent): void {
    this.store.setState((s) => reduceLabEvent(s, event));
    if (event.type === 'step' && this.store.getState().runs[event.runId] && event.metrics.step > 0) void this.checkpoints.saveLoadedRun();
  }

  /**
   * A new worker on the chosen backend; the loaded run is checkpointed first and continues from there.
   * The lab is busy from the first moment of the switch: a Step or Train pressed while the old
   * worker saves would go to a worker about to be closed, whose answer never comes, and leave Train
   * dead until a reload.
   */
  async switchBackend(choice: LabState['backend']): Promise<void> {
    const busy = this.store.getState().busy;
    if (busy !== null) {
      notify(this.store, 'info', `the backend can change once this is done: ${busy}`);
      return;
    }
    this.store.setState({ backend: choice, busy: `Switching to ${choice}: saving the run…` });
    try {
      const api = this.api;
      if (api && (await this.started)) {
        await this.stopRunning();
        const loaded = this.store.getState().loadedRunId;
        if (loaded) await this.guard(this.checkpoints.saveLoaded(api, loaded));
      }
      this.connection?.close();
      this.connection = null;
      this.start();
    } finally {
      this.store.setState({ busy: null });
    }
    // The new worker's start is waited for as at page load: Train and Step wait for 'ready'.
    await this.started;
  }

  /** Runs `work` against the ready worker with `label` shown as busy; refuses while another command runs. */
  async command(label: string, work: (api: TrainerWorkerApi) => Promise<void>): Promise<boolean> {
    if (this.store.getState().busy !== null) return false;
    if (!(await this.started) || !this.api) {
      notify(this.store, 'error', 'the trainer is not ready');
      return false;
    }
    const api = this.api;
    this.store.setState({ busy: label });
    try {
      await work(api);
      return true;
    } catch (error) {
      notify(this.store, 'error', messageOf(error));
      return false;
    } finally {
      this.store.setState({ busy: null });
    }
  }

  /**
   * Runs `go` (Train, Step) against the worker until it returns, not shown as busy (Pause must
   * reach it); then saves `runId`'s state if the worker still holds it.
   */
  async run(runId: string, go: (api: TrainerWorkerApi) => Promise<void>): Promise<void> {
    const api = this.api;
    if (!api) return;
    const running = this.guard(go(api)).then(() => undefined);
    this.running = running;
    try {
      await running;
    } finally {
      this.running = null;
    }
    if (this.store.getState().loadedRunId === runId) await this.checkpoints.saveLoadedRun();
  }

  /** Pauses the Train or Step call under way, if any. */
  async pause(): Promise<void> {
    const api = this.api;
    if (!api || !this.running) return;
    await this.guard(api.pause());
  }

  /**
   * Pauses a pending train() and waits for it to return, and for the events it sent before its
   * reply: the status event that ends it trails its last step's (settledStatus.ts).
   */
  async stopRunning(): Promise<void> {
    const running = this.running;
    if (!running || !this.api) return;
    await this.guard(this.api.pause());
    await running;
    const loaded = this.store.getState().loadedRunId;
    if (loaded) await settledStatus(this.store, loaded);
  }

  /** Closes the worker for good (the lab moved to another tab): no command reaches it after, and none starts. */
  close(): void {
    this.closed = true;
    this.connection?.close();
    this.connection = null;
    this.started = Promise.resolve(false);
  }

  /** Awaits a worker call; a rejection becomes a notice (and undefined) instead of an unhandled error. */
  async guard<T>(call: Promise<T>): Promise<T | undefined> {
    try {
      return await call;
    } catch (error) {
      notify(this.store, 'error', messageOf(error));
      return undefined;
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
