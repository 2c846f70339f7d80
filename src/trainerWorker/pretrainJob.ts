/**
 * Pretraining a base model in the lab (the pretrain panel): a fresh GPT, the synthetic corpus
 * with the chosen tool prior, one 'pretrainStep' and one 'progress' event per step. It stops early
 * when asked (the lab's pause) and returns the checkpoint of the steps it ran.
 */
import { serializeCheckpoint } from '../core/run/checkpoint';
import { BASE_MODEL_CONFIG, type GPTConfig } from '../core/model/config';
import { GPT } from '../core/model/gpt';
import { BASE_PRETRAIN_CONFIG, Pretrainer, type PretrainConfig } from '../core/pretrain/pretrainer';
import { progressEvent } from './progressEvent';
import { readWeightsAsync } from './readWeightsAsync';
import type { CheckpointBlob } from '../core/run/checkpointBlob';
import type { LabEvent } from './protocol';

export interface PretrainOptions {
  steps: number;
  seed: number;
  toolPrior: number;
}

/** Model and batch sizes; the shipped base model's by default, tests shrink them. */
export interface PretrainShape {
  model: GPTConfig;
  batchSize: number;
  rowLength: number;
}

export const BASE_PRETRAIN_SHAPE: PretrainShape = {
  model: BASE_MODEL_CONFIG,
  batchSize: BASE_PRETRAIN_CONFIG.batchSize,
  rowLength: BASE_PRETRAIN_CONFIG.rowLength,
};

export const MAX_PRETRAIN_STEPS = 100_000;

/** What is wrong with pretrain options from the UI, one message per field (empty when valid). */
export function pretrainOptionErrors(options: PretrainOptions): string[] {
  const errors: string[] = [];
  const { steps, seed, toolPrior } = options ?? ({} as PretrainOptions);
  if (!Number.isInteger(steps) || steps < 1 || steps > MAX_PRETRAIN_STEPS) errors.push(`steps must be a whole number from 1 to ${MAX_PRETRAIN_STEPS}`);
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 31 - 1) errors.push('seed must be a whole number from 0 to 2147483647');
  if (typeof toolPrior !== 'number' || !(toolPrior >= 0 && toolPrior <= 1)) errors.push('toolPrior must be a number from 0 to 1');
  return errors;
}

export interface PretrainHooks {
  emit(event: LabEvent): void;
  /** Runs one step with exclusive use of the backend (the session's work queue). */
  exclusive<T>(job: () => Promise<T>): Promise<T>;
  /** Lets the worker handle messages between steps. */
  yieldToEvents(): Promise<void>;
  shouldStop(): boolean;
}

export async function runPretraining(options: PretrainOptions, shape: PretrainShape, hooks: PretrainHooks): Promise<CheckpointBlob> {
  const config: PretrainConfig = {
    ...BASE_PRETRAIN_CONFIG,
    seed: options.seed,
    steps: options.steps,
    batchSize: shape.batchSize,
    rowLength: shape.rowLength,
    recipe: { ...BASE_PRETRAIN_CONFIG.recipe, toolPrior: options.toolPrior },
  };
  const model = GPT.init(shape.model, options.seed);
  const pretrainer = new Pretrainer(model, config);
  const started = performance.now();
  try {
    hooks.emit(progressEvent('pretrain', 0, config.steps, 0));
    while (pretrainer.step < config.steps && !hooks.shouldStop()) {
      const { step, loss } = await hooks.exclusive(() => pretrainer.trainStep());
      hooks.emit({ type: 'pretrainStep', step, loss });
      hooks.emit(progressEvent('pretrain', step, config.steps, performance.now() - started, `loss ${loss.toFixed(3)}`));
      await hooks.yieldToEvents();
    }
    await readWeightsAsync(model);
    return serializeCheckpoint(model, {
      kind: 'base',
      createdBy: 'TIR Lab pretrain panel',
      pretrain: config,
      stepsCompleted: pretrainer.step,
      wallSeconds: (performance.now() - started) / 1000,
    });
  } finally {
    pretrainer.dispose();
    model.dispose();
  }
}
