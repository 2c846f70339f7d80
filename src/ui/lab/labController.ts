/**
 * The lab's commands: what Train, Pause, Step, Reset, Fork, a sweep, a backend switch, pretraining
 * and the file buttons do. Data flows one way: a command reads the store, talks to the worker
 * through the TrainerWorkerApi, and the worker's LabEvents come back into the store (reduceLabEvent).
 * Commands only change the store: IndexedDB follows it by one subscription (storePersistence.ts).
 * No knob reaches the worker unless configErrors passes it.
 */
import { fetchCheckpoint } from '../../browser/checkpointFetch';
import { configErrors, type ExperimentConfig } from '../../core/experiment';
import type { ModelAnswer } from '../../core/env/answerQuestion';
import type { PassAtOneSettings } from '../../core/eval/evalReport';
import type { StepStage } from '../../core/rl/stepStages';
import type { CheckpointBlob } from '../../labWorker/checkpointBlob';
import type { LabEvent, RunFrom, TrainerWorkerApi } from '../../labWorker/protocol';
import { metaStep, type ImportFile } from '../persistence/checkpointFile';
import { PRETRAINED_BASE_KEY, type RunDatabase } from '../persistence/runDatabase';
import { makeRun, newRunId, uniqueRunName, type LabRun } from '../state/labRun';
import { notify, patchRun, putRun, reduceLabEvent, removeRun, setRunCheckpoint, type LabState, type LabStore, type RunCheckpoint } from '../state/labStore';
import { labPreset } from '../state/presets';
import { metricsRows, truncateColumns } from '../state/runColumns';
import { screenErrors } from '../state/screenErrors';
import { startFormatError, type StartFrom } from '../state/startFrom';
import { copyConfig } from '../state/urlState';
import { ArmWorker } from './armWorker';
import { exportRunCheckpoint, importRunCheckpoint } from './checkpointTransfer';
import { modelToAsk, type AskHost } from './askModelJob';
import { cancelEvaluation, evaluateSource, type EvaluationHost, type EvaluationSource } from './evaluationJob';
import { latestSweep, queueSweep, runSweep, type SweepArmWorker, type SweepHost } from './nmaxSweep';
import { StartModels } from './startModels';
import { RunWrites } from './runWrites';
import { exportRunFile, importRunFile, looksLikeRunFile, type RunTransferHost } from './runTransfer';
import { StorePersistence } from './storePersistence';
import { restoreRuns } from './storedRuns';
import { sweepLanes } from './sweepLanes';
import type { ConnectTrainer, TrainerConnection } from './trainerConnection';

/** How Train, Step or Slow motion step may go on with a run whose curves run past its saved state (RestartQuestion). */
export type RestartAnswer = 'keep' | 'drop' | 'cancel';

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
  private readonly connect: ConnectTrainer;
  private readonly db: RunDatabase | null;
  private readonly baseModelUrl: string;
  private readonly now: () => number;
  private connection: TrainerConnection | null = null;
  private ready: Promise<boolean> = Promise.resolve(false);
  /** The pending worker.train() or worker.step() call, while one runs. */
  private running: Promise<void> | null = null;
  /** The loaded run's state being saved, one save at a time; `saveQueued` when a save waits behind it. */
  private saving: Promise<void> = Promise.resolve();
  private saveQueued = false;
  /** Resolves the question Train asked before deleting steps (restartQuestion in the store). */
  private answerRestartQuestion: ((answer: RestartAnswer) => void) | null = null;
  private readonly writes: RunWrites;
  private readonly persistence: StorePersistence;
  private readonly sweepHost: SweepHost;
  private readonly evaluationHost: EvaluationHost;
  private readonly transferHost: RunTransferHost;
  private readonly askHost: AskHost;
  private readonly startModels: StartModels;
  private readonly cores: number;
  /** The sweep arms' own workers while they train (armWorker.ts). */
  private readonly armWorkers = new Set<ArmWorker>();
  /** Pause pressed during a sweep: no arm worker starts until Train resumes it. */
  private sweepPauseRequested = false;

  constructor(options: LabControllerOptions) {
    this.store = options.store;
    this.cores = options.cores ?? (typeof navigator === 'undefined' ? 1 : navigator.hardwareConcurrency || 1);
    this.connect = options.connect;
    this.db = options.db;
    this.writes = new RunWrites(this.store, options.db);
    this.persistence = new StorePersistence(this.store, this.writes);
    this.baseModelUrl = options.baseModelUrl;
    this.now = options.now ?? (() => Date.now());
    this.startModels = new StartModels(this.baseModelUrl, options.fetchModel ?? ((url) => fetchCheckpoint(url)));
    this.sweepHost = {
      store: this.store,
      now: this.now,
      ready: () => this.ready,
      knobs: () => this.validKnobs(),
      addRun: (run) => this.addRun(run),
      train: () => this.trainShownRun(),
      evaluateRun: (runId) => this.evaluateRun(runId),
      lanes: (armsLeft) => sweepLanes(this.cores, armsLeft),
      openArmWorker: () => this.openArmWorker(),
      pauseRequested: () => this.sweepPauseRequested,
    };
    this.evaluationHost = {
      store: this.store,
      now: this.now,
      runCheckpoint: async (api, runId) => (this.state.loadedRunId === runId ? this.saveLoadedCheckpoint(api, runId) : this.storedCheckpoint(runId)),
      startModel: (start) => this.startModels.get(start),
    };
    this.transferHost = {
      store: this.store,
      now: this.now,
      runCheckpoint: async (runId) => {
        const api = this.api;
        if (api && this.state.loadedRunId === runId) return this.guard(this.saveLoadedCheckpoint(api, runId));
        return this.storedCheckpoint(runId);
      },
      knobs: () => this.validKnobs(),
      addRun: (run) => this.addRun(run),
      selectRun: (runId) => this.selectRun(runId),
    };
    this.askHost = {
      state: () => this.state,
      storedCheckpoint: (runId) => this.storedCheckpoint(runId),
      startModel: (start) => this.startModels.get(start),
    };
  }

  private get api(): TrainerWorkerApi | null {
    return this.connection?.api ?? null;
  }

  private get state(): LabState {
    return this.store.getState();
  }

  /**
   * Brings back stored runs, starts the worker, and trains if asked. The run shown is the one the
   * URL names; else, for a URL that sets no experiment, the newest; a URL that sets one shows no
   * stored run (its settings are the next run's). A shown run's settings go into the knobs, so the
   * settings panel and the presenter caption describe the run on the charts.
   */
  async start(autostart: boolean, url: { runId: string | null; urlNamesSettings: boolean } = { runId: null, urlNamesSettings: false }): Promise<void> {
    await this.restore(url);
    this.startWorker();
    if (autostart && (await this.ready)) await this.train();
  }

  private async restore(url: { runId: string | null; urlNamesSettings: boolean }): Promise<void> {
    if (!this.db) return;
    try {
      const { runs, broken } = await restoreRuns(this.db);
      const pretrained = await this.db.checkpoint(PRETRAINED_BASE_KEY);
      const named = runs.find((r) => r.id === url.runId);
      const shown = named ?? (url.urlNamesSettings ? undefined : runs[0]);
      this.persistence.adopt(() =>
        this.store.setState({
          runs: Object.fromEntries(runs.map((r) => [r.id, r])),
          runOrder: runs.map((r) => r.id),
          brokenRuns: broken,
          selectedRunId: null,
          pretrainedBase: pretrained ? { steps: pretrained.step, checkpoint: pretrained.blob } : null,
          sweep: latestSweep(runs),
        }),
      );
      for (const run of broken) notify(this.store, 'error', `the stored run "${run.name}" cannot be shown: ${run.reason}`);
      if (url.runId !== null && !named) notify(this.store, 'info', `URL: no stored run ${url.runId} in this browser (its settings are in the knobs)`);
      if (shown) this.selectRun(shown.id);
    } catch (error) {
      this.writes.failure(error);
    }
  }

  private startWorker(): void {
    this.store.setState({ worker: 'starting', backendInfo: null, loadedRunId: null });
    const connection = this.connect((message) => {
      if (this.connection !== connection) return;
      this.store.setState({ worker: 'failed', busy: null });
      notify(this.store, 'error', message);
    });
    this.connection = connection;
    const options = { backend: this.state.backend, baseModelUrl: this.baseModelUrl };
    this.ready = connection.api.init(options, (event) => this.onEvent(event)).then(
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
  onEvent(event: LabEvent): void {
    this.store.setState((s) => reduceLabEvent(s, event));
    if (event.type === 'step' && this.state.runs[event.runId] && event.metrics.step > 0) void this.checkpoint();
  }

  // ---- Train, Pause, Step, Reset, Fork -------------------------------------------------------

  /**
   * Trains the shown run (continuing it from its checkpoint if needed), or a new one from the knobs;
   * with a sweep preset chosen, queues (or resumes) the Nmax sweep instead.
   */
  async train(): Promise<void> {
    if (labPreset(this.state.preset)?.sweepNmax !== undefined) {
      const sweep = this.state.sweep;
      // Arms training side by side leave the lab's worker idle: Train must not queue a second sweep.
      if (sweep?.running) return;
      if (sweep && !sweep.running && sweep.position < sweep.runIds.length) await this.resumeSweep();
      else await this.startSweep();
      return;
    }
    await this.trainShownRun();
  }

  /** Trains the shown run to its budget (a new one from the knobs if there is none). */
  private async trainShownRun(): Promise<void> {
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

  async pause(): Promise<void> {
    if (this.state.sweep?.running) this.sweepPauseRequested = true;
    await Promise.all([...this.armWorkers].map((arm) => this.guard(arm.pause())));
    const api = this.api;
    if (!api || !this.running) return;
    await this.guard(api.pause());
  }

  /**
   * The shown run back to step 0 from the base model, with the knobs as they are now (so: pause,
   * change Nmax, Reset). Its metrics, samples and checkpoint are dropped. (The worker's own reset
   * returns to where the run started, which for a continued run is its checkpoint, not step 0.)
   */
  async reset(): Promise<void> {
    const run = this.selected();
    if (!run) return;
    const config = this.validKnobs();
    if (!config) return;
    await this.command('Resetting', async (api) => {
      await this.stopRunning();
      this.clearRun(run.id, config, this.state.startFrom);
      await this.startInWorker(api, run.id, config, null);
    });
  }

  /** A new run from the shown run's checkpoint and metrics so far, with the knobs as they are now. */
  async fork(): Promise<void> {
    const source = this.selected();
    if (!source) return;
    const config = this.validKnobs();
    if (!config) return;
    await this.command('Forking', async (api) => {
      await this.stopRunning();
      const saved = this.state.loadedRunId === source.id ? await this.saveLoadedCheckpoint(api, source.id) : await this.storedCheckpoint(source.id);
      const step = saved?.step ?? 0;
      const fork = makeRun({
        id: newRunId(this.now()),
        name: `${source.name} fork@${step}`,
        preset: this.state.preset,
        config,
        createdAt: this.now(),
        history: saved ? metricsRows(source.columns).filter((m) => m.step <= step) : [],
        samples: saved ? source.samples.filter((s) => s.step <= step) : [],
        status: 'paused',
        startFrom: saved ? source.startFrom : this.state.startFrom,
      });
      this.addRun(fork);
      if (saved) setRunCheckpoint(this.store, fork.id, saved);
      await this.startInWorker(api, fork.id, config, saved ?? null);
    });
  }

  /** Shows a run and puts its config (and preset) into the knobs. */
  selectRun(id: string): void {
    const run = this.state.runs[id];
    if (!run) return;
    this.store.setState({
      selectedRunId: id,
      config: copyConfig(run.config),
      preset: labPreset(run.preset) ? run.preset : this.state.preset,
      startFrom: run.startFrom,
    });
  }

  /** Starts a fresh run from the knobs at the next Train or Step. */
  newRunFromKnobs(): void {
    this.store.setState({ selectedRunId: null });
  }

  /** Forgets a stored run that cannot be shown (IndexedDB follows). */
  deleteBrokenRun(id: string): void {
    this.store.setState((s) => ({ brokenRuns: s.brokenRuns.filter((r) => r.id !== id) }));
  }

  async deleteRun(id: string): Promise<void> {
    const run = this.state.runs[id];
    if (!run || (this.state.loadedRunId === id && this.running) || run.status === 'training') return;
    removeRun(this.store, id);
  }

  // ---- Backend ------------------------------------------------------------------------------

  /**
   * A new worker on the chosen backend; the shown run is checkpointed first and continues from there.
   * The lab is busy from the first moment of the switch: a Step or Train pressed while the old
   * worker saves would go to a worker about to be closed, whose answer never comes, and leave Train
   * dead until a reload.
   */
  async switchBackend(choice: LabState['backend']): Promise<void> {
    const busy = this.state.busy;
    if (busy !== null) {
      notify(this.store, 'info', `the backend can change once this is done: ${busy}`);
      return;
    }
    this.store.setState({ backend: choice, busy: `Switching to ${choice}: saving the run…` });
    try {
      const api = this.api;
      if (api && (await this.ready)) {
        await this.stopRunning();
        const loaded = this.state.loadedRunId;
        if (loaded) await this.guard(this.saveLoadedCheckpoint(api, loaded));
      }
      this.replaceWorker();
    } finally {
      this.store.setState({ busy: null });
    }
    // The new worker's start is waited for as at page load: Train and Step wait for 'ready'.
    await this.ready;
  }

  private replaceWorker(): void {
    this.connection?.close();
    this.connection = null;
    this.startWorker();
  }

  // ---- Nmax sweep ---------------------------------------------------------------------------

  /** Queues one run per sweep Nmax and trains and evaluates them in order (nmaxSweep.ts). */
  async startSweep(): Promise<void> {
    if (this.state.busy || this.running) return;
    this.sweepPauseRequested = false;
    if (queueSweep(this.sweepHost)) await runSweep(this.sweepHost);
  }

  /** A worker of its own for sweep arms, on the backend the lab's worker chose; it leaves the set when closed. */
  private async openArmWorker(): Promise<SweepArmWorker | null> {
    const backend = this.state.backendInfo?.name;
    if (!backend) return null;
    if (this.sweepPauseRequested) return null;
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
    if (this.sweepPauseRequested) void arm.pause();
    return {
      trainAndEvaluate: (runId, nmaxValues) => arm.trainAndEvaluate(runId, nmaxValues),
      close: () => {
        this.armWorkers.delete(arm);
        arm.close();
      },
    };
  }

  /** Where a sweep arm goes on from in a worker of its own, as loadForContinue does in the lab's worker. */
  private async armFrom(runId: string): Promise<RunFrom | undefined> {
    const run = this.state.runs[runId];
    return run ? this.runFrom(runId, await this.savedStateToContinue(run)) : undefined;
  }

  /** Continues a paused or restored sweep from its first unfinished run. */
  async resumeSweep(): Promise<void> {
    if (this.state.busy || this.running) return;
    this.sweepPauseRequested = false;
    await runSweep(this.sweepHost);
  }

  /** Held-out accuracy of a run's latest checkpoint at each sweep Nmax (a row of the matrix). */
  async evaluateRun(runId: string): Promise<void> {
    const run = this.state.runs[runId];
    if (!run) return;
    const nmaxValues = this.state.sweep?.nmaxValues ?? this.state.sweepNmax;
    await this.command('Evaluating', async (api) => {
      await this.stopRunning();
      if (this.state.loadedRunId !== runId) await this.loadForContinue(api, run);
      const row = await api.evaluate(nmaxValues);
      patchRun(this.store, runId, { evaluation: row.accuracyByNmax });
    });
  }

  // ---- pass@1 evaluation -------------------------------------------------------------------

  /** ReTool's pass@1 of a run's checkpoint or a start model on the held-out set (evaluationJob.ts); not while training. */
  async evaluatePassAtOne(source: EvaluationSource, settings: PassAtOneSettings): Promise<void> {
    if (this.running) {
      notify(this.store, 'error', 'pause training before evaluating');
      return;
    }
    await this.command('Evaluating pass@1…', (api) => evaluateSource(this.evaluationHost, api, source, settings));
  }

  async cancelEvaluation(): Promise<void> {
    const api = this.api;
    if (api) await this.guard(cancelEvaluation(this.store, api));
  }

  // ---- Ask the model ------------------------------------------------------------------------

  /**
   * One question to the shown run's model (askModelJob.ts), with the knobs' Nmax, temperature and
   * seed; `onModel` learns which model answers, `onAnswer` gets the answer as it is written. Not
   * while a run trains or a step runs. Resolves to the answer, or null when it was not asked.
   */
  async askModel(question: string, greedy: boolean, listener: { onModel(label: string): void; onAnswer(answer: ModelAnswer): void }): Promise<ModelAnswer | null> {
    if (this.running) {
      notify(this.store, 'info', 'the model is busy training: pause it (or let the step finish), then ask');
      return null;
    }
    const config = this.validKnobs();
    if (!config) return null;
    let answer: ModelAnswer | null = null;
    await this.command('Asking the model…', async (api) => {
      const { model, label } = await modelToAsk(this.askHost);
      listener.onModel(label);
      answer = await api.askModel({ question, config, greedy, model }, listener.onAnswer);
    });
    return answer;
  }

  // ---- Pretraining --------------------------------------------------------------------------

  /** Pretrains a base model in the worker; new runs can then start from it instead of the shipped one. */
  async pretrain(options: { steps: number; seed: number; toolPrior: number }): Promise<void> {
    await this.command('Pretraining', async (api) => {
      await this.stopRunning();
      this.store.setState({ pretrainLoss: { step: [], loss: [], revision: this.state.pretrainLoss.revision + 1 } });
      const checkpoint = await api.pretrain(options);
      // Whether the worker kept the loaded run through pretraining is its business: reload it from its checkpoint.
      this.store.setState({ pretrainedBase: { steps: options.steps, checkpoint }, baseModel: 'pretrained', loadedRunId: null });
    });
  }

  // ---- Files --------------------------------------------------------------------------------

  /** The run's checkpoint as a file's text (checkpointTransfer.ts). */
  async exportCheckpoint(runId: string): Promise<string | null> {
    return exportRunCheckpoint(this.transferHost, runId);
  }

  /** The run as one file: config, curves, samples and its whole run state (runTransfer.ts). */
  async exportRun(runId: string): Promise<string | null> {
    return exportRunFile(this.transferHost, runId);
  }

  /** A run file as a new run with its curves, or a checkpoint file (or the CLI's pair) as a new paused run. */
  importFiles(files: ImportFile[]): boolean {
    if (files.length === 1) {
      const text = new TextDecoder().decode(files[0].bytes);
      if (looksLikeRunFile(text)) return importRunFile(this.transferHost, files[0].name, text);
    }
    return importRunCheckpoint(this.transferHost, files);
  }

  // ---- Internals ----------------------------------------------------------------------------

  private selected(): LabRun | null {
    const id = this.state.selectedRunId;
    return id === null ? null : (this.state.runs[id] ?? null);
  }

  /** The knobs if configErrors passes them, else null and a notice (the fields show the messages). */
  private validKnobs(): ExperimentConfig | null {
    const config = this.state.config;
    const startError = startFormatError(this.state.startFrom, config.format);
    const errors = [...Object.values(screenErrors(configErrors(config))), ...(startError ? [startError] : [])];
    if (errors.length > 0) {
      notify(this.store, 'error', `fix the marked fields first: ${errors.join('; ')}`);
      return null;
    }
    return copyConfig(config);
  }

  /** Runs `work` against the ready worker with `label` shown as busy; refuses while another command runs. */
  private async command(label: string, work: (api: TrainerWorkerApi) => Promise<void>): Promise<boolean> {
    if (this.state.busy !== null) return false;
    if (!(await this.ready) || !this.api) {
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

  /** Train or Step: gets the shown run (or a new one) into the worker, then runs `go` until it returns. */
  private async drive(go: (api: TrainerWorkerApi) => Promise<void>): Promise<void> {
    if (this.running) return;
    let target = this.selected();
    if (!target || target.status === 'finished' || target.status === 'error') {
      const config = this.validKnobs();
      if (!config) return;
      const ended = target;
      const name = uniqueRunName(runName(this.state.preset, config), Object.values(this.state.runs).map((r) => r.name));
      // A finished run cannot train on; say that a new one starts rather than add a look-alike silently.
      if (ended) notify(this.store, 'info', `"${ended.name}" ${ended.status === 'finished' ? `finished at step ${ended.step}` : 'stopped with an error'}: a new run, "${name}", starts from the knobs (Fork continues a run with a larger step budget)`);
      target = makeRun({
        id: newRunId(this.now()),
        name,
        preset: this.state.preset,
        config,
        createdAt: this.now(),
        startFrom: this.state.startFrom,
      });
      this.addRun(target);
    }
    let run = target;
    if (this.state.loadedRunId !== run.id) {
      const kept = await this.keepStepsPastCheckpoint(run);
      if (!kept) return;
      run = kept;
    }
    const startModel = run.startFrom === 'coldstart' ? 'cold-start model' : 'base model';
    const label = run.checkpointStep === null ? `Starting the run: held-out test of the ${startModel}…` : 'Loading the run from its checkpoint…';
    const loaded = await this.command(label, async (api) => {
      if (this.state.loadedRunId !== run.id) await this.loadForContinue(api, run);
    });
    if (!loaded || !this.api) return;
    const api = this.api;
    const running = this.guard(go(api)).then(() => undefined);
    this.running = running;
    try {
      await running;
    } finally {
      this.running = null;
    }
    if (this.state.loadedRunId === run.id) await this.checkpoint();
  }

  /**
   * Before a run is loaded to train on: when its curves go past its saved state (the page closed
   * before the save of its last steps landed, or a run file exported between saves), going on would
   * delete those steps, so the person is asked first (restartQuestion): keep the curves as a
   * finished run and train a copy from the saved step, delete the steps past it, or do nothing.
   * The run to train, or null for nothing.
   */
  private async keepStepsPastCheckpoint(run: LabRun): Promise<LabRun | null> {
    if (this.state.restartQuestion !== null) return null;
    const saved = await this.storedCheckpoint(run.id);
    const savedStep = saved?.step ?? null;
    const lastStep = run.columns.step.at(-1) ?? 0;
    if (lastStep <= (savedStep ?? 0)) return run;
    const answer = await new Promise<RestartAnswer>((resolve) => {
      this.answerRestartQuestion = resolve;
      this.store.setState({ restartQuestion: { runId: run.id, runName: run.name, savedStep, lastStep } });
    });
    this.answerRestartQuestion = null;
    this.store.setState({ restartQuestion: null });
    if (answer === 'cancel' || !this.state.runs[run.id]) return null;
    if (answer === 'drop') return this.state.runs[run.id];
    patchRun(this.store, run.id, { status: 'finished' });
    const step = savedStep ?? 0;
    const source = this.state.runs[run.id];
    const copy = makeRun({
      id: newRunId(this.now()),
      name: uniqueRunName(`${source.name} from step ${step}`, Object.values(this.state.runs).map((r) => r.name)),
      preset: source.preset,
      config: source.config,
      createdAt: this.now(),
      history: saved ? metricsRows(source.columns).filter((m) => m.step <= step) : [],
      samples: saved ? source.samples.filter((s) => s.step <= step) : [],
      status: 'paused',
      startFrom: source.startFrom,
    });
    this.addRun(copy);
    if (saved) setRunCheckpoint(this.store, copy.id, saved);
    notify(this.store, 'info', `"${source.name}" is kept as it was, finished at step ${lastStep}; "${copy.name}" trains on from step ${step}`);
    return copy;
  }

  /** Answers the question Train asked before deleting a run's steps past its saved state. */
  answerRestart(answer: RestartAnswer): void {
    this.answerRestartQuestion?.(answer);
  }

  /** Pauses a pending train() and waits for it to return. */
  private async stopRunning(): Promise<void> {
    const running = this.running;
    if (!running || !this.api) return;
    await this.guard(this.api.pause());
    await running;
  }

  /** Puts a run into the worker where it stopped (savedStateToContinue). */
  private async loadForContinue(api: TrainerWorkerApi, run: LabRun): Promise<void> {
    await this.startInWorker(api, run.id, run.config, await this.savedStateToContinue(run));
  }

  /**
   * The run's stored checkpoint, with the metrics recorded after it dropped; or null, the run
   * cleared to go on from the base model at step 0 when it has none.
   */
  private async savedStateToContinue(run: LabRun): Promise<RunCheckpoint | null> {
    const saved = await this.storedCheckpoint(run.id);
    if (saved) {
      this.dropStepsAfter(run.id, saved.step);
      return saved;
    }
    if (run.columns.step.some((step) => step > 0)) notify(this.store, 'info', `${run.name} had no saved checkpoint: it restarts from step 0`);
    this.clearRun(run.id, run.config);
    return null;
  }

  /**
   * startRun, from a checkpoint (which continues exactly, against the run's start model as KL
   * reference), the run's start model (the cold start), or the base model (the one pretrained here
   * when chosen). What the worker could not restore is shown as a notice.
   */
  private async startInWorker(
    api: TrainerWorkerApi,
    runId: string,
    config: ExperimentConfig,
    from: { step: number; blob: CheckpointBlob } | null,
  ): Promise<void> {
    const runFrom = await this.runFrom(runId, from);
    this.store.setState({ loadedRunId: null });
    const notices = runFrom ? await api.startRun(runId, config, runFrom) : await api.startRun(runId, config);
    this.store.setState({ loadedRunId: runId, selectedRunId: runId });
    const name = this.state.runs[runId]?.name ?? runId;
    for (const notice of notices) notify(this.store, 'info', `${name}: ${notice}`);
  }

  /** The checkpoint against the run's start model as KL reference, else its start model at step 0, else (undefined) the base model. */
  private async runFrom(runId: string, from: { step: number; blob: CheckpointBlob } | null): Promise<RunFrom | undefined> {
    const start = this.state.runs[runId]?.startFrom ?? 'base';
    const pretrained = this.state.baseModel === 'pretrained' ? this.state.pretrainedBase : null;
    const startModel = start !== 'base' ? await this.startModels.get(start) : (pretrained?.checkpoint ?? null);
    if (from) return { checkpoint: from.blob, step: from.step, ...(startModel ? { reference: startModel } : {}) };
    if (startModel) return { checkpoint: startModel, step: 0 };
    return undefined;
  }

  private async saveLoadedCheckpoint(api: TrainerWorkerApi, runId: string): Promise<RunCheckpoint> {
    const blob = await api.saveCheckpoint();
    // The worker may be mid-step when it answers: its own record of the step is the one to trust.
    const step = metaStep(blob.manifest) ?? this.state.runs[runId]?.step ?? 0;
    const saved = { step, blob };
    setRunCheckpoint(this.store, runId, saved);
    return saved;
  }

  /** The run's checkpoint as last saved: in this page, else in IndexedDB; null when it has none. */
  private async storedCheckpoint(runId: string): Promise<RunCheckpoint | null> {
    const here = this.state.checkpoints[runId];
    if (here !== undefined) return here;
    return this.db ? this.db.checkpoint(runId) : null;
  }

  /**
   * Saves the loaded run's state unless what is saved is at its step already. One save at a time; a
   * request made during a save is served once it ends (so the last step is never left unsaved), and
   * requests made meanwhile are one.
   */
  private checkpoint(): Promise<void> {
    if (this.saveQueued) return this.saving;
    this.saveQueued = true;
    this.saving = this.saving.then(async () => {
      this.saveQueued = false;
      const api = this.api;
      const runId = this.state.loadedRunId;
      const run = runId === null ? undefined : this.state.runs[runId];
      if (!api || !this.db || !run || this.state.checkpoints[run.id]?.step === run.step) return;
      try {
        await this.saveLoadedCheckpoint(api, run.id);
      } catch (error) {
        notify(this.store, 'error', `checkpoint not saved: ${messageOf(error)}`);
      }
    });
    return this.saving;
  }

  private clearRun(runId: string, config: ExperimentConfig, startFrom?: StartFrom): void {
    const run = this.state.runs[runId];
    if (!run) return;
    const cleared = makeRun({ ...run, config, status: 'idle', history: [], samples: [], startFrom: startFrom ?? run.startFrom });
    putRun(this.store, { ...cleared, revision: run.revision + 1, evaluation: null });
    setRunCheckpoint(this.store, runId, null);
  }

  private dropStepsAfter(runId: string, step: number): void {
    const run = this.state.runs[runId];
    if (!run) return;
    truncateColumns(run.columns, step + 1);
    patchRun(this.store, runId, { step, samples: run.samples.filter((s) => s.step <= step), revision: run.revision + 1 });
  }

  private addRun(run: LabRun): void {
    putRun(this.store, run);
    this.store.setState({ selectedRunId: run.id });
  }

  /** Awaits a worker call; a rejection becomes a notice (and undefined) instead of an unhandled error. */
  private async guard<T>(call: Promise<T>): Promise<T | undefined> {
    try {
      return await call;
    } catch (error) {
      notify(this.store, 'error', messageOf(error));
      return undefined;
    }
  }

  /** Resolves once every IndexedDB write issued so far has landed. */
  async flush(): Promise<void> {
    await this.writes.flush();
  }
}

function runName(preset: string, config: ExperimentConfig): string {
  return `${preset} Nmax ${config.nmax} ${config.algorithm} seed ${config.seed}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
