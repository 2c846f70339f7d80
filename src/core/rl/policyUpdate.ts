/**
 * The gradient half of an RL step: epochs over shuffled minibatches of the kept rollouts, each
 * one Adam step on the clipped PPO objective (plus the clipped value loss for PPO and the KL
 * penalty to the frozen base when its coefficient is set), with global-norm gradient clipping.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ExperimentConfig } from '../experiment';
import { applyGradients } from '../model/fusedOps';
import type { GPT } from '../model/gpt';
import type { Random } from '../random';
import { clipByGlobalNorm } from './gradClip';
import { klPenalty } from './kl';
import { clippedValueLoss, ppoPolicyLoss, tokenLogProbsAndEntropy } from './ppoLoss';
import { disposeMinibatch, minibatchTensors, type TrainingSequence } from './trainingBatch';

export interface UpdateFigures {
  clipFraction: number;
  valueLoss: number | null;
  entropy: number;
  gradNorm: number;
}

/** Log-probs of each sequence's response tokens under `model` (no gradient), minibatch by minibatch. */
export async function responseLogProbs(model: GPT, sequences: TrainingSequence[], temperature: number, chunk: number): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let start = 0; start < sequences.length; start += chunk) {
    const part = sequences.slice(start, start + chunk);
    const batch = minibatchTensors(part);
    const grid = tf.tidy(() => tokenLogProbsAndEntropy(model.forward(batch.inputs).logits, batch.targets, temperature).logProbs);
    const data = await grid.data();
    const width = batch.inputs.shape[1];
    grid.dispose();
    disposeMinibatch(batch);
    part.forEach((seq, row) => {
      const from = row * width + seq.responseStart - 1;
      out.push(Float32Array.from(data.subarray(from, from + seq.policyMask.length)));
    });
  }
  return out;
}

export async function policyUpdate(
  model: GPT,
  optimizer: tf.Optimizer,
  sequences: TrainingSequence[],
  config: ExperimentConfig,
  rng: Random,
): Promise<UpdateFigures> {
  const variables = model.trainableVariables();
  const useCritic = config.algorithm === 'ppo';
  const totals = { clipFraction: 0, valueLoss: 0, entropy: 0, gradNorm: 0, updates: 0 };
  for (let epoch = 0; epoch < config.epochs; epoch++) {
    const order = rng.permutation(sequences.length);
    for (let start = 0; start < order.length; start += config.minibatchSize) {
      const batch = minibatchTensors(order.slice(start, start + config.minibatchSize).map((i) => sequences[i]));
      let figures: tf.Tensor[] = [];
      const { value, grads } = tf.variableGrads(() => {
        const { logits, values } = model.forward(batch.inputs);
        const { logProbs, entropy } = tokenLogProbsAndEntropy(logits, batch.targets, config.temperature);
        const policy = ppoPolicyLoss(logProbs, batch.oldLogProbs, batch.advantages, batch.mask, config.clipEps);
        let loss: tf.Scalar = policy.loss;
        const valueLoss = useCritic
          ? clippedValueLoss(values, batch.oldValues, batch.returns, batch.mask, config.valueClip)
          : tf.scalar(0);
        if (useCritic) loss = tf.add(loss, tf.mul(valueLoss, config.valueCoef));
        if (config.klCoef > 0) {
          loss = tf.add(loss, tf.mul(klPenalty(logProbs, batch.refLogProbs, batch.mask, config.klEstimator), config.klCoef));
        }
        const meanEntropy = tf.div(tf.sum(tf.mul(entropy, batch.mask)), tf.maximum(tf.sum(batch.mask), 1));
        figures = [policy.clipFraction, valueLoss, meanEntropy].map((t) => tf.keep(t));
        return loss;
      }, variables);
      const clipped = await clipByGlobalNorm(grads, config.gradClip);
      // A non-finite gradient (NaN/Inf somewhere) would poison the weights: skip that update.
      if (Number.isFinite(clipped.norm)) applyGradients(optimizer, clipped.grads);
      const [clipFraction, valueLoss, entropy] = await Promise.all(figures.map((t) => t.data()));
      tf.dispose([value, ...figures, ...Object.values(grads), ...Object.values(clipped.grads)]);
      disposeMinibatch(batch);
      totals.clipFraction += clipFraction[0];
      totals.valueLoss += valueLoss[0];
      totals.entropy += entropy[0];
      totals.gradNorm += clipped.norm;
      totals.updates++;
    }
  }
  const n = Math.max(totals.updates, 1);
  return {
    clipFraction: totals.clipFraction / n,
    valueLoss: useCritic ? totals.valueLoss / n : null,
    entropy: totals.entropy / n,
    gradNorm: totals.gradNorm / n,
  };
}

