/**
 * One supervised step of next-token prediction (pretraining and the ReTool cold start): the
 * mean negative log-likelihood over the targets whose mask is 1, one Adam step at the given
 * rate with global-norm clipping. Returns the loss.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { GPT } from '../model/gpt';
import { applyGradients, setLearningRate } from '../optim/adamStep';
import { tokenLogProbsAndEntropy } from '../model/tokenLogProbs';
import { clipByGlobalNorm } from '../optim/gradClip';

/** The run of next-token steps both pretraining and SFT configure (each with its own schedule). */
export interface NextTokenRun {
  seed: number;
  steps: number;
  batchSize: number;
  /** Tokens per row (inputs). */
  rowLength: number;
  learningRate: number;
  warmupSteps: number;
  gradClip: number;
}

export interface NextTokenBatch {
  rows: number;
  width: number;
  inputs: Int32Array;
  targets: Int32Array;
  /** 1 where the target carries loss (not PAD, not environment output). */
  mask: Float32Array;
}

export async function nextTokenStep(
  model: GPT,
  optimizer: tf.Optimizer,
  batch: NextTokenBatch,
  options: { learningRate: number; gradClip: number },
): Promise<number> {
  setLearningRate(optimizer, options.learningRate);
  const shape: [number, number] = [batch.rows, batch.width];
  const inputs = tf.tensor2d(batch.inputs, shape, 'int32');
  const targets = tf.tensor2d(batch.targets, shape, 'int32');
  const mask = tf.tensor2d(batch.mask, shape);
  const { value, grads } = tf.variableGrads(() => {
    const { logProbs } = tokenLogProbsAndEntropy(model.forward(inputs).logits, targets, 1);
    return tf.neg(tf.div(tf.sum(tf.mul(logProbs, mask)), tf.maximum(tf.sum(mask), 1))) as tf.Scalar;
  }, model.trainableVariables());
  const clipped = await clipByGlobalNorm(grads, options.gradClip);
  // A non-finite gradient would poison the weights: skip that update.
  if (Number.isFinite(clipped.norm)) applyGradients(optimizer, clipped.grads);
  const loss = (await value.data())[0];
  tf.dispose([inputs, targets, mask, value, ...Object.values(grads), ...Object.values(clipped.grads)]);
  return loss;
}
