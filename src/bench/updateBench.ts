/**
 * The gradient half of an RL step, measured alone: one PPO minibatch (forward, backward, Adam) over
 * synthetic sequences of the benchmark's shape, on a copy of the model so the caller's weights stay
 * as they were.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ExperimentConfig } from '../core/experiment';
import type { GPT } from '../core/model/gpt';
import { Random } from '../core/random';
import { BOS } from '../core/tokenizer';
import { policyUpdate } from '../core/rl/policyUpdate';
import type { TrainingSequence } from '../core/rl/trainingBatch';
import { countDispatches, timeSplit, type TimeSplit } from './dispatchCounter';
import { countModelFlops } from './flops';
import { round } from './generationBench';

export interface UpdateRun {
  sequences: number;
  /** Positions through forward and backward: sequences x (prompt + response). */
  tokens: number;
  seconds: number;
  tokensPerSecond: number;
  /** The model FLOPs of the update (src/bench/flops.ts). */
  flops: number;
  split: TimeSplit;
}

const PROMPT_TOKENS = 16;

/** `rows` sequences of a 16-token prompt and `responseTokens` policy tokens, random but seeded. */
export function syntheticSequences(rows: number, responseTokens: number, vocabSize: number, seed: number): TrainingSequence[] {
  const rng = new Random(seed);
  const ids = (n: number) => Array.from({ length: n }, () => rng.int(3, vocabSize - 1));
  return Array.from({ length: rows }, () => ({
    ids: [BOS, ...ids(PROMPT_TOKENS + responseTokens)],
    responseStart: 1 + PROMPT_TOKENS,
    policyMask: new Array(responseTokens).fill(1),
    oldLogProbs: new Array(responseTokens).fill(-Math.log(vocabSize)),
    oldValues: new Array(responseTokens).fill(0),
    advantages: Float32Array.from({ length: responseTokens }, () => rng.normal()),
    returns: Float32Array.from({ length: responseTokens }, () => rng.int(0, 1)),
    refLogProbs: new Float32Array(responseTokens).fill(-Math.log(vocabSize)),
  }));
}

/** One minibatch of `rows` sequences: timed after a small warm-up update (wasm's first calls are slow). */
export async function benchUpdate(model: GPT, config: ExperimentConfig, rows: number, responseTokens: number): Promise<UpdateRun> {
  const trained = model.copy();
  const optimizer = tf.train.adam(config.learningRate);
  const settings = { ...config, epochs: 1, minibatchSize: rows };
  try {
    const V = model.config.vocabSize;
    await policyUpdate(trained, optimizer, syntheticSequences(Math.min(rows, 4), responseTokens, V, 1), settings, new Random(1));
    const sequences = syntheticSequences(rows, responseTokens, V, 2);
    const counter = countDispatches();
    const started = performance.now();
    let flops: number;
    try {
      ({ flops } = await countModelFlops(() => policyUpdate(trained, optimizer, sequences, settings, new Random(2))));
    } finally {
      counter.stop();
    }
    const seconds = (performance.now() - started) / 1000;
    const tokens = rows * (PROMPT_TOKENS + responseTokens);
    return { sequences: rows, tokens, seconds: round(seconds, 3), tokensPerSecond: round(tokens / seconds, 1), flops, split: timeSplit(counter.counts(), seconds) };
  } finally {
    optimizer.dispose();
    trained.dispose();
  }
}
