/**
 * A run's state beyond its weights: what the next RL step depends on. A checkpoint that carries it
 * (src/core/run/checkpoint.ts) resumes exactly: the same prompts, samples, shuffles and Adam
 * steps as a run never stopped, against the same KL reference.
 */
import { configErrors, withSavedConfigDefaults, type ExperimentConfig } from '../experiment';
import type { AdamState } from '../optim/adamState';
import { isObject } from '../jsonValue';

/** Positions (Random.saveState) of the trainer's three random streams. */
export interface RandomStreams {
  problems: number;
  samples: number;
  shuffle: number;
}

/**
 * The KL reference is the run's start model (the base or a cold start), never the checkpoint a run
 * was resumed from. `fingerprint` is weightsFingerprint of its weights buffer; `source` says where
 * it came from (a checkpoint directory for the CLI, a start model's name in the lab).
 */
export interface ReferenceIdentity {
  fingerprint: string;
  source: string;
}

/** What Trainer.saveState gives and its constructor takes back. */
export interface TrainerProgress {
  step: number;
  random: RandomStreams;
  optimizer: AdamState;
}

/** The whole run state a checkpoint carries besides the weights. */
export interface TrainerState extends TrainerProgress {
  config: ExperimentConfig;
  reference: ReferenceIdentity;
}

/** The JSON part of a TrainerState (the moments travel as binary). */
export type TrainerStateJson = Omit<TrainerState, 'optimizer'> & { optimizer: Omit<AdamState, 'firstMoments' | 'secondMoments'> };

/** Checks an untrusted JSON trainer section; throws saying which field is wrong. */
export function checkTrainerStateJson(value: unknown): TrainerStateJson {
  if (!isObject(value)) throw new Error('trainer state is not a JSON object');
  const { step, random, reference, optimizer } = value;
  const config = withSavedConfigDefaults(value.config);
  if (!isWhole(step)) throw new Error(`trainer state step must be a whole number, got ${JSON.stringify(step)}`);
  if (!isObject(config)) throw new Error('trainer state has no config');
  const errors = Object.values(configErrors(config as unknown as ExperimentConfig));
  if (errors.length > 0) throw new Error(`trainer state config is invalid: ${errors.join('; ')}`);
  if (!isObject(random) || !(['problems', 'samples', 'shuffle'] as const).every((k) => isUint32(random[k]))) {
    throw new Error('trainer state random must hold the uint32 positions problems, samples and shuffle');
  }
  if (!isObject(reference) || typeof reference.fingerprint !== 'string' || typeof reference.source !== 'string') {
    throw new Error('trainer state reference must name its fingerprint and source');
  }
  if (!isObject(optimizer) || !isWhole(optimizer.iterations) || !isFiniteNumber(optimizer.accBeta1) || !isFiniteNumber(optimizer.accBeta2)) {
    throw new Error('trainer state optimizer must hold iterations, accBeta1 and accBeta2');
  }
  return {
    step,
    config: { ...(config as unknown as ExperimentConfig) },
    random: { problems: random.problems as number, samples: random.samples as number, shuffle: random.shuffle as number },
    reference: { fingerprint: reference.fingerprint, source: reference.source },
    optimizer: { iterations: optimizer.iterations, accBeta1: optimizer.accBeta1, accBeta2: optimizer.accBeta2 },
  };
}

function isWhole(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isUint32(value: unknown): value is number {
  return isWhole(value) && value <= 0xffffffff;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
