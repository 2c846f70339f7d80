/**
 * The gradient half of an RL step: epochs over shuffled minibatches of the kept rollouts, each
 * one Adam step on the objective of ppoObjective.ts, with global-norm gradient clipping; with
 * helpers, each minibatch's gradient is shared out over their threads (gradientHelpers.ts).
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ExperimentConfig } from '../experiment';
import { applyGradients } from '../optim/adamStep';
import type { GPT } from '../model/gpt';
import { tokenLogProbsAndEntropy } from '../model/tokenLogProbs';
import { clipByGlobalNorm } from '../optim/gradClip';
import type { Random } from '../random';
import { ALGORITHMS } from './algorithms';
import type { GradientHelper } from './gradientHelpers';
import { chunkOverhead, lengthChunks, minibatchGradients } from './minibatchGradients';
import { disposeMinibatch, minibatchTensors, type TrainingSequence } from './trainingBatch';

/** Means over the step's updates. */
export interface UpdateFigures {
  clipFraction: number;
  approxKl: number;
  valueLoss: number | null;
  entropy: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
}

/**
 * Log-probs of each sequence's response tokens under `model` (no gradient), in chunks of rows of
 * similar length (less padding; see minibatchGradients.ts).
 */
export async function responseLogProbs(model: GPT, sequences: TrainingSequence[], temperature: number): Promise<Float32Array[]> {
  const out = new Map<TrainingSequence, Float32Array>();
  for (const part of lengthChunks(sequences)) {
    const batch = minibatchTensors(part);
    const grid = tf.tidy(() => tokenLogProbsAndEntropy(model.forward(batch.inputs).logits, batch.targets, temperature).logProbs);
    const data = await grid.data();
    const width = batch.inputs.shape[1];
    grid.dispose();
    disposeMinibatch(batch);
    part.forEach((seq, row) => {
      const from = row * width + seq.responseStart - 1;
      out.set(seq, Float32Array.from(data.subarray(from, from + seq.policyMask.length)));
    });
  }
  return sequences.map((seq) => out.get(seq)!);
}

export async function policyUpdate(
  model: GPT,
  optimizer: tf.Optimizer,
  sequences: TrainingSequence[],
  config: ExperimentConfig,
  rng: Random,
  helpers: readonly GradientHelper[] = [],
): Promise<UpdateFigures> {
  const { usesCritic } = ALGORITHMS[config.algorithm];
  const totals = { clipFraction: 0, approxKl: 0, valueLoss: 0, entropy: 0, gradNorm: 0, updates: 0 };
  for (let epoch = 0; epoch < config.epochs; epoch++) {
    const order = rng.permutation(sequences.length);
    for (let start = 0; start < order.length; start += config.minibatchSize) {
      const minibatch = order.slice(start, start + config.minibatchSize).map((i) => sequences[i]);
      const { grads, clipFraction, approxKl, valueLoss, entropy } = await minibatchGradients(model, minibatch, config, chunkOverhead(), helpers);
      const clipped = await clipByGlobalNorm(grads, config.gradClip);
      try {
        // A non-finite gradient (NaN/Inf somewhere) would poison the weights: skip that update.
        if (Number.isFinite(clipped.norm)) applyGradients(optimizer, clipped.grads);
      } finally {
        // Freed on a failed update too (out of memory): the step is undone and the run goes on.
        tf.dispose([...Object.values(grads), ...Object.values(clipped.grads)]);
      }
      totals.clipFraction += clipFraction;
      totals.approxKl += approxKl;
      totals.valueLoss += valueLoss;
      totals.entropy += entropy;
      totals.gradNorm += clipped.norm;
      totals.updates++;
    }
  }
  const n = Math.max(totals.updates, 1);
  return {
    clipFraction: totals.clipFraction / n,
    approxKl: totals.approxKl / n,
    valueLoss: usesCritic ? totals.valueLoss / n : null,
    entropy: totals.entropy / n,
    gradNorm: totals.gradNorm / n,
  };
}

