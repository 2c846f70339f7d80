/**
 * The lab's worker protocol: the only way the UI reaches the engine. TrainerWorkerApi is the one
 * list of commands: the page's side (ui/controller/trainerConnection.ts) and the worker's
 * (trainerWorker/trainerApi.ts) are derived from it, and LabSession implements every command but init,
 * so a new command is written here and in the session. The UI passes callbacks (init's event
 * callback among them) and receives everything else as LabEvents. No tfjs, no DOM.
 */
import type { ModelAnswer } from '../core/rollout/answerQuestion';
import type { EvalReport } from '../core/eval/evalReport';
import type { ExperimentConfig } from '../core/experiment';
import type { StepMetrics } from '../core/metrics/stepMetrics';
import type { RolloutSample } from '../core/rollout/rolloutSample';
import type { StepStage, StepStageName } from '../core/rl/stepStages';
import type { AskRequest } from './askRequest';
import type { CheckpointBlob } from '../core/run/checkpointBlob';
import type { PassAtOneRequest } from './evaluationRequest';

export type BackendName = 'webgpu' | 'webgl' | 'wasm' | 'cpu';
/** 'auto' runs a short measured probe and picks the fastest backend that works. */
export type BackendChoice = 'auto' | BackendName;

export interface BackendInfo {
  name: BackendName;
  /** WebGPU adapter facts, when WebGPU was probed. */
  adapter: { vendor: string; architecture: string; isFallbackAdapter: boolean } | null;
  /** Probe time per backend in ms (null: unavailable or failed), and why the winner won. */
  probeMs: Partial<Record<BackendName, number | null>>;
  reason: string;
}

/**
 * Where a run starts other than the base model: a checkpoint at a step (a start model at step 0, or
 * a run's checkpoint, which continues exactly), and for a run's checkpoint the run's start model
 * when it is not the base (the cold start, a base pretrained here): its KL reference.
 */
export interface RunFrom {
  checkpoint: CheckpointBlob;
  step: number;
  reference?: CheckpointBlob;
}

export type RunStatus = 'idle' | 'training' | 'paused' | 'finished' | 'error';

export type LabEvent =
  | { type: 'backend'; info: BackendInfo }
  | { type: 'status'; runId: string | null; status: RunStatus; step: number; message?: string }
  | { type: 'step'; runId: string; metrics: StepMetrics; samples: RolloutSample[] }
  /** The stage the run's step under way is in (Train, Step, slow motion), sent a few times a second at most. */
  | { type: 'stage'; runId: string; step: number; stage: StepStageName }
  /** Long work (pretraining, sweeps, evaluation): done of total, with an ETA. */
  | { type: 'progress'; task: 'pretrain' | 'evaluate' | 'sweep'; done: number; total: number; etaSeconds: number | null; detail?: string }
  | { type: 'pretrainStep'; step: number; loss: number }
  | { type: 'error'; message: string };

/** One cell row of the train-Nmax by eval-Nmax matrix: accuracy at each inference budget. */
export interface EvaluationRow {
  runId: string;
  accuracyByNmax: Record<number, number>;
}

export interface TrainerWorkerApi {
  /** Picks the backend (or uses the override) and loads the base model from `baseModelUrl`. */
  init(options: { backend: BackendChoice; baseModelUrl: string }, onEvent: (event: LabEvent) => void): Promise<BackendInfo>;
  /**
   * Starts a run at step 0 from the base model, or from a checkpoint (RunFrom). Resolves to notices
   * for the person: what the checkpoint could not restore (weights only: a fresh optimizer).
   */
  startRun(runId: string, config: ExperimentConfig, from?: RunFrom): Promise<string[]>;
  /** Trains until paused or the run's step budget is reached, emitting a 'step' event per step. */
  train(): Promise<void>;
  pause(): Promise<void>;
  /** Exactly one RL step. */
  step(): Promise<void>;
  /**
   * One RL step in slow motion: `onStage` (a comlink proxy) gets each stage's data for one group,
   * and the step waits for the promise it returns before the next stage. Same numbers as step().
   */
  slowMotionStep(onStage: (stage: StepStage) => Promise<void>): Promise<void>;
  /** Back to the starting model, step 0, same config. */
  reset(): Promise<void>;
  saveCheckpoint(): Promise<CheckpointBlob>;
  /** Held-out greedy accuracy of the current model at each inference Nmax. */
  evaluate(nmaxValues: number[]): Promise<EvaluationRow>;
  /**
   * ReTool's pass@1 on the held-out test set (k samples per problem, by tier and inference Nmax,
   * with the code-use figures) of a checkpoint loaded into a model of its own, with 'progress'
   * events; the report is `npm run eval`'s JSON. Null when cancelled. Not while training.
   */
  evaluatePassAtOne(request: PassAtOneRequest): Promise<EvalReport | null>;
  /** Stops a running evaluatePassAtOne after its current chunk of samples. */
  cancelEvaluation(): Promise<void>;
  /**
   * "Ask the model": the question answered by the chosen model through a training step's rollout
   * code, its Python run in the sandbox; `onAnswer` (a comlink proxy) gets the answer as it is
   * written, token by token. Not while training.
   */
  askModel(request: AskRequest, onAnswer: (answer: ModelAnswer) => void): Promise<ModelAnswer>;
  /** Pretrains a fresh base model from the synthetic corpus with 'pretrainStep' and 'progress' events. */
  pretrain(options: { steps: number; seed: number; toolPrior: number }): Promise<CheckpointBlob>;
}

/** The commands the worker's session answers: all but init, which makes the session. */
export type TrainerCommands = Omit<TrainerWorkerApi, 'init'>;

/**
 * TrainerWorkerApi's names at run time, for the two sides that forward every command; the compiler
 * holds this record to the interface (a missing or extra name does not build).
 */
const COMMAND_NAMES = {
  init: true,
  startRun: true,
  train: true,
  pause: true,
  step: true,
  slowMotionStep: true,
  reset: true,
  saveCheckpoint: true,
  evaluate: true,
  evaluatePassAtOne: true,
  cancelEvaluation: true,
  askModel: true,
  pretrain: true,
} as const satisfies Record<keyof TrainerWorkerApi, true>;

export const TRAINER_COMMANDS = Object.keys(COMMAND_NAMES) as (keyof TrainerWorkerApi)[];
