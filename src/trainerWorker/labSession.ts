/**
 * What the trainer worker holds: the base model, the current run (its model and the engine's
 * Trainer), the training loop, checkpoints, evaluation and pretraining. Written against a
 * PythonSandbox and plain callbacks, so the same class runs in the worker and in Node tests.
 *
 * One long job at a time (a training loop, a pretraining or an evaluation); `pause` stops it at
 * the next step boundary, and a training step inside its rollouts (the step is dropped, the run
 * left at its last completed step). Every unit of work that touches the model goes through one WorkQueue, so commands
 * that arrive mid-step (save, evaluate, reset) see the weights between steps.
 */
import { answerQuestion, type ModelAnswer } from '../core/rollout/answerQuestion';
import { configErrors, NUMERIC_BOUNDS, type ExperimentConfig } from '../core/experiment';
import { deserializeCheckpoint, serializeCheckpoint } from '../core/run/checkpoint';
import type { GPT } from '../core/model/gpt';
import type { StepObserver } from '../core/rl/stepStages';
import { RolloutStopped } from '../core/rollout/rollout';
import type { GradientHelper } from '../core/rl/gradientHelpers';
import { openRun } from '../core/rl/openRun';
import type { Trainer, StepRecord } from '../core/rl/trainer';
import type { ReferenceIdentity } from '../core/run/trainerState';
import type { PythonSandbox } from '../core/sandbox/protocol';
import { questionError } from '../core/tasks/ownQuestion';
import { runPassAtOneJob } from './passAtOneJob';
import type { EvalReport } from '../core/eval/evalReport';
import type { PassAtOneRequest } from './evaluationRequest';
import { BASE_PRETRAIN_SHAPE, pretrainOptionErrors, runPretraining, type PretrainOptions, type PretrainShape } from './pretrainJob';
import { progressEvent } from './progressEvent';
import { StageEvents } from './stageEvents';
import { readWeightsAsync } from './readWeightsAsync';
import type { AskedModel, AskRequest } from './askRequest';
import type { CheckpointBlob } from '../core/run/checkpointBlob';
import type { EvaluationRow, LabEvent, RunFrom, RunStatus, TrainerCommands } from './protocol';
import { WorkQueue } from './workQueue';

export interface LabSessionOptions {
  /** The base model runs start from; the session owns it and disposes it. */
  base: GPT;
  baseMeta?: Record<string, unknown>;
  /** weightsFingerprint of the base model's weights: the KL reference's identity for runs from it. */
  baseFingerprint: string;
  sandbox: PythonSandbox;
  emit(event: LabEvent): void;
  /** Between steps: lets the worker handle queued messages (pause). Default: a macrotask. */
  yieldToEvents?: () => Promise<void>;
  pretrainShape?: PretrainShape;
  /** Threads that share each update of a run (core/rl/gradientHelpers.ts). */
  gradientHelpers?: readonly GradientHelper[];
}

/**
 * Where a run starts and where reset returns: the base model, or a saved checkpoint at a step (with
 * the run's start model, its KL reference, when that is not the base).
 */
interface RunStart {
  checkpoint: CheckpointBlob | null;
  step: number;
  reference: CheckpointBlob | null;
}

interface Run {
  id: string;
  config: ExperimentConfig;
  start: RunStart;
  model: GPT;
  trainer: Trainer;
  reference: ReferenceIdentity;
  /** The step-0 record (the starting model's held-out accuracy); replayed by reset. */
  initialRecord: StepRecord | null;
}

type JobKind = 'train' | 'pretrain' | 'evaluate';

const JOB_NAMES: Record<JobKind, string> = { train: 'training', pretrain: 'pretraining', evaluate: 'evaluating' };

/**
 * How often a step's rollouts let the worker's messages (Pause) in. A yield is a macrotask (4 ms
 * where timers clamp) against 5 to 15 ms a token step: at every step it would slow generation by a
 * third, every 200 ms by 2%, and Pause lands within 200 ms and a token step.
 */
const STOP_CHECK_MS = 200;

/** Every worker command but init (trainerApi.ts forwards each to the method of its name). */
export class LabSession implements TrainerCommands {
  private run: Run | null = null;
  private readonly queue = new WorkQueue();
  /** The long job running now, if any. */
  private job: { kind: JobKind; done: Promise<unknown> } | null = null;
  private stopRequested = false;
  /** A Step (not a job) under way, which pause stops too. */
  private stepStop: { requested: boolean } | null = null;
  private readonly yieldToEvents: () => Promise<void>;

  constructor(private readonly options: LabSessionOptions) {
    this.yieldToEvents = options.yieldToEvents ?? (() => new Promise((resolve) => setTimeout(resolve, 0)));
  }

  get currentRunId(): string | null {
    return this.run?.id ?? null;
  }

  get currentStep(): number {
    return this.run?.trainer.step ?? 0;
  }

  /**
   * Replaces the current run (stopping its training) with a new one at its start point. A run's
   * checkpoint continues exactly (weights, Adam, random streams, step); the notices say what could
   * not be restored (a weights-only checkpoint, a start model other than the run's). The config is
   * checked once, where it enters the lab: the knobs by validKnobs (a sweep's Nmax list where it is
   * typed or read from the URL), a stored run, run file or checkpoint file when read (core/archive/);
   * the worker's one caller is that page, so it does not check again.
   */
  async startRun(runId: string, config: ExperimentConfig, from?: RunFrom): Promise<string[]> {
    if (typeof runId !== 'string' || runId === '') throw new Error('startRun needs a non-empty run id');
    if (typeof config !== 'object' || config === null) throw new Error('startRun needs an experiment config object');
    if (from !== undefined && !(Number.isInteger(from.step) && from.step >= 0 && from.step <= NUMERIC_BOUNDS.steps[1])) {
      throw new Error(`a run can start from a checkpoint at a whole step from 0 to ${NUMERIC_BOUNDS.steps[1]}, got ${String(from.step)}`);
    }
    await this.stopTraining();
    const start: RunStart = { checkpoint: from?.checkpoint ?? null, step: from?.step ?? 0, reference: from?.reference ?? null };
    const notices = await this.queue.run(async () => {
      // Build the new run before dropping the old, so a bad checkpoint leaves the current run as it was.
      const { model, trainer, reference, notices } = this.openModel(config, start);
      this.closeRun();
      this.run = { id: runId, config: { ...config }, start, model, trainer, reference, initialRecord: null };
      return notices;
    });
    await this.announceStart(this.requireRun());
    return notices;
  }

  /** Trains until paused or the step budget is reached; one 'step' event per step. */
  async train(): Promise<void> {
    const run = this.requireRun();
    await this.runJob('train', () => this.trainLoop(run));
  }

  /**
   * Stops the running job (training loop, pretraining, evaluation) at the next step boundary, or a
   * training step inside its rollouts, and waits for the job.
   */
  async pause(): Promise<void> {
    this.stopRequested = true;
    if (this.stepStop) this.stepStop.requested = true;
    // The job reports its own failure to its caller; pause only waits for it to be over.
    await this.job?.done.catch(() => undefined);
  }

  /**
   * Exactly one RL step. In slow motion, `onStage` gets each stage's data and the step waits for its
   * promise (the person's Next) before the next stage; the step's numbers are a normal step's.
   * Pause drops it; the run stays at its last step.
   */
  async step(onStage?: StepObserver): Promise<void> {
    const run = this.requireRun();
    if (this.job?.kind === 'train') throw new Error('training is running; pause it before stepping');
    const stop = { requested: false };
    this.stepStop = stop;
    try {
      const ran = await this.queue.run(async () => {
        if (run.trainer.step >= run.config.steps) return false;
        await this.trainOneStep(run, () => stop.requested, onStage);
        return true;
      });
      if (!ran) {
        // The page may think the run is short of it (another tab trained it on): it shows it finished.
        this.setStatus(run, 'finished');
        throw new Error(`the run has reached its step budget (${run.config.steps} steps): Fork it with more steps to go on`);
      }
    } finally {
      if (this.stepStop === stop) this.stepStop = null;
    }
    this.setStatus(run, run.trainer.step >= run.config.steps ? 'finished' : 'paused');
  }

  /** Step in slow motion: `onStage` gets each stage's data and the step waits for its promise. */
  slowMotionStep(onStage: StepObserver): Promise<void> {
    return this.step(onStage);
  }

  /** Back to the run's starting weights and step, same config; step 0 replays its initial record. */
  async reset(): Promise<void> {
    const run = this.requireRun();
    await this.stopTraining();
    await this.queue.run(async () => {
      const { model, trainer, reference } = this.openModel(run.config, run.start);
      run.trainer.dispose();
      run.model.dispose();
      Object.assign(run, { model, trainer, reference });
    });
    await this.announceStart(run);
  }

  async saveCheckpoint(): Promise<CheckpointBlob> {
    const run = this.requireRun();
    return this.queue.run(async () => {
      await readWeightsAsync(run.model);
      const progress = await run.trainer.saveState();
      const meta = { kind: 'rl', runId: run.id, config: run.config, step: run.trainer.step, base: this.startModelMeta(run.start) };
      return serializeCheckpoint(run.model, meta, { ...progress, config: run.config, reference: run.reference });
    });
  }

  /** Held-out greedy accuracy of the current weights at each inference Nmax, with progress events. */
  async evaluate(nmaxValues: number[]): Promise<EvaluationRow> {
    const run = this.requireRun();
    const [low, high] = NUMERIC_BOUNDS.nmax;
    if (!Array.isArray(nmaxValues) || nmaxValues.length === 0 || nmaxValues.some((n) => !Number.isInteger(n) || n < low || n > high)) {
      throw new Error(`evaluate needs a list of whole Nmax values from ${low} to ${high}, got ${JSON.stringify(nmaxValues)}`);
    }
    const accuracyByNmax: Record<number, number> = {};
    const started = performance.now();
    this.options.emit(progressEvent('evaluate', 0, nmaxValues.length, 0));
    for (const [i, nmax] of nmaxValues.entries()) {
      const { accuracy } = await this.queue.run(() => run.trainer.evaluateTest(nmax));
      accuracyByNmax[nmax] = accuracy;
      this.options.emit(progressEvent('evaluate', i + 1, nmaxValues.length, performance.now() - started, `Nmax ${nmax}: ${accuracy.toFixed(3)}`));
    }
    return { runId: run.id, accuracyByNmax };
  }

  /**
   * "Ask the model": one question answered by the run's model (its weights now), a checkpoint's or
   * the base model, as a training step would write it, with `onAnswer` getting it as it is written.
   * Between steps (the work queue), and refused while training: the weights would change under it.
   */
  async askModel(request: AskRequest, onAnswer?: (answer: ModelAnswer) => void): Promise<ModelAnswer> {
    if (this.job?.kind === 'train') throw new Error('the model is training: pause it before asking it a question');
    const problem = questionError(request?.question);
    if (problem) throw new Error(problem);
    const errors = Object.values(configErrors(request.config ?? ({} as ExperimentConfig)));
    if (errors.length > 0) throw new Error(`invalid settings: ${errors.join('; ')}`);
    return this.queue.run(async () => {
      const { model, owned } = this.askedModel(request.model);
      try {
        return await answerQuestion(model, request.question, { config: request.config, greedy: request.greedy === true, sandbox: this.options.sandbox }, onAnswer);
      } finally {
        if (owned) model.dispose();
      }
    });
  }

  /** The model a question goes to; `owned`: loaded for it, to be freed after. */
  private askedModel(asked: AskedModel): { model: GPT; owned: boolean } {
    switch (asked?.kind) {
      case 'run': {
        const run = this.requireRun();
        if (run.id !== asked.runId) throw new Error(`run ${asked.runId} is not the one loaded (${run.id})`);
        return { model: run.model, owned: false };
      }
      case 'checkpoint':
        return { model: deserializeCheckpoint(asked.checkpoint.manifest, asked.checkpoint.weights).model, owned: true };
      case 'base':
        return { model: this.options.base, owned: false };
      default:
        throw new Error('askModel needs the model to ask: a run, a checkpoint or the base model');
    }
  }

  /** Pretrains a fresh base model; pause stops it early and the checkpoint holds the steps done. */
  async pretrain(options: PretrainOptions): Promise<CheckpointBlob> {
    const errors = pretrainOptionErrors(options);
    if (errors.length > 0) throw new Error(`invalid pretrain options: ${errors.join('; ')}`);
    return this.runJob('pretrain', () =>
      runPretraining(options, this.options.pretrainShape ?? BASE_PRETRAIN_SHAPE, {
        emit: this.options.emit,
        exclusive: (work) => this.queue.run(work),
        yieldToEvents: this.yieldToEvents,
        shouldStop: () => this.stopRequested,
      }),
    );
  }

  /**
   * pass@1 of a checkpoint on the held-out evaluation set (passAtOneJob.ts), in a model of its own, so
   * the run's weights are not touched; null when cancelled. One long job at a time: not while
   * training or pretraining.
   */
  async evaluatePassAtOne(request: PassAtOneRequest): Promise<EvalReport | null> {
    return this.runJob('evaluate', () =>
      runPassAtOneJob(request, {
        sandbox: this.options.sandbox,
        emit: this.options.emit,
        exclusive: (work) => this.queue.run(work),
        yieldToEvents: this.yieldToEvents,
        shouldStop: () => this.stopRequested,
      }),
    );
  }

  /** Stops a running evaluation after its current chunk and waits for it; anything else goes on. */
  async cancelEvaluation(): Promise<void> {
    if (this.job?.kind === 'evaluate') await this.pause();
  }

  /** Stops work and frees every tensor the session holds (the sandbox belongs to the caller). */
  async dispose(): Promise<void> {
    await this.pause();
    await this.queue.run(async () => {
      this.closeRun();
      this.options.base.dispose();
    });
  }

  private runJob<T>(kind: JobKind, work: () => Promise<T>): Promise<T> {
    if (this.job) throw new Error(`the worker is busy ${JOB_NAMES[this.job.kind]}; ${this.job.kind === 'evaluate' ? 'cancel' : 'pause'} it first`);
    this.stopRequested = false;
    const job = { kind, done: work() };
    this.job = job;
    return job.done.finally(() => {
      if (this.job === job) this.job = null;
    }) as Promise<T>;
  }

  /** Pauses a training loop; a pretraining (which does not touch the run) goes on. */
  private async stopTraining(): Promise<void> {
    if (this.job?.kind === 'train') await this.pause();
  }

  private async trainLoop(run: Run): Promise<void> {
    this.setStatus(run, 'training');
    while (!this.stopRequested && run.trainer.step < run.config.steps) {
      await this.queue.run(() => this.trainOneStep(run, () => this.stopRequested));
      await this.yieldToEvents();
    }
    this.setStatus(run, run.trainer.step >= run.config.steps ? 'finished' : 'paused');
  }

  /**
   * One step, its 'stage' events as it moves (the page's loop diagram) and its 'step' event. A step
   * stopped by pause is dropped quietly. A failed step is reported: the trainer takes the run back to
   * its last step, weights and optimizer included, and the run stays usable there ('paused', the
   * failure goes to the caller); should that fail too, the run ends in 'error'.
   */
  private async trainOneStep(run: Run, stopRequested: () => boolean, onStage?: StepObserver): Promise<void> {
    const stepBefore = run.trainer.step;
    const stages = new StageEvents((stage) => this.options.emit({ type: 'stage', runId: run.id, step: stepBefore + 1, stage }));
    let record: StepRecord;
    try {
      record = await run.trainer.trainStep(onStage, this.stopCheck(stopRequested), stages.report);
    } catch (error) {
      stages.stop();
      if (error instanceof RolloutStopped) return;
      if (run.trainer.step === stepBefore) this.setStatus(run, 'paused');
      else this.setStatus(run, 'error', messageOf(error));
      throw error;
    }
    stages.flush();
    this.options.emit({ type: 'step', runId: run.id, metrics: record.metrics, samples: record.samples });
  }

  /** A step's shouldStop: lets queued messages in (at most every STOP_CHECK_MS, first at once) and reads the flag. */
  private stopCheck(stopRequested: () => boolean): () => Promise<boolean> {
    let lastYield = -Infinity;
    return async () => {
      if (performance.now() - lastYield >= STOP_CHECK_MS) {
        await this.yieldToEvents();
        lastYield = performance.now();
      }
      return stopRequested();
    };
  }

  /** Status at the start point; a run from step 0 also gets its step-0 record (computed once per run). */
  private async announceStart(run: Run): Promise<void> {
    this.setStatus(run, run.start.step >= run.config.steps ? 'finished' : 'idle');
    if (run.start.step !== 0) return;
    run.initialRecord ??= await this.queue.run(() => run.trainer.initialRecord());
    const { metrics, samples } = run.initialRecord;
    this.options.emit({ type: 'step', runId: run.id, metrics, samples });
  }

  /**
   * The run's model and trainer at its start point. The KL reference is the run's start model: the
   * base, a start checkpoint at step 0 (a cold start, a pretrained base) itself, or for a run's
   * checkpoint the start model it names by fingerprint (start.reference, else the base).
   */
  private openModel(config: ExperimentConfig, start: RunStart): { model: GPT; trainer: Trainer; reference: ReferenceIdentity; notices: string[] } {
    const base = { model: this.options.base, identity: { fingerprint: this.options.baseFingerprint, source: 'base model' } };
    if (!start.checkpoint) {
      const model = this.options.base.copy();
      return { model, ...openRun(config, this.options.sandbox, { model, step: 0, saved: null }, [base], this.options.gradientHelpers) };
    }
    const loaded = deserializeCheckpoint(start.checkpoint.manifest, start.checkpoint.weights);
    const { model, trainer: saved } = loaded;
    if (!saved && start.step === 0) {
      const itself = { model, identity: { fingerprint: loaded.fingerprint, source: 'start checkpoint' } };
      return { model, ...openRun(config, this.options.sandbox, { model, step: 0, saved: null }, [itself], this.options.gradientHelpers) };
    }
    const offered = start.reference ? deserializeCheckpoint(start.reference.manifest, start.reference.weights) : null;
    try {
      const startModels = [...(offered ? [{ model: offered.model, identity: { fingerprint: offered.fingerprint, source: 'start model' } }] : []), base];
      return { model, ...openRun(config, this.options.sandbox, { model, step: start.step, saved }, startModels, this.options.gradientHelpers) };
    } finally {
      offered?.model.dispose();
    }
  }

  /**
   * What a run's checkpoints name as their base: the model it started from. A start checkpoint at
   * step 0 is that model (a cold start, a pretrained base); a continued run's checkpoint names its own.
   */
  private startModelMeta(start: RunStart): unknown {
    const manifest = start.checkpoint?.manifest as { meta?: Record<string, unknown> } | null | undefined;
    const meta = manifest?.meta;
    if (!meta) return this.options.baseMeta ?? null;
    return start.step === 0 ? meta : (meta.base ?? this.options.baseMeta ?? null);
  }

  private closeRun(): void {
    if (!this.run) return;
    this.run.trainer.dispose();
    this.run.model.dispose();
    this.run = null;
  }

  private setStatus(run: Run, status: RunStatus, message?: string): void {
    const event: LabEvent = { type: 'status', runId: run.id, status, step: run.trainer.step };
    this.options.emit(message === undefined ? event : { ...event, message });
  }

  private requireRun(): Run {
    if (!this.run) throw new Error('no run: call startRun first');
    return this.run;
  }
}

/** An error's message, for an 'error' event or a notice. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
