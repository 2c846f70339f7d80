/**
 * The gradient of one minibatch's loss, computed over chunks of rows of similar length. A padded
 * batch costs rows x its longest row, and the rows are far from equal: answers that ran code carry
 * the tool's output and are two to three times longer than the rest. Sorted by length and cut into
 * chunks, the short rows are no longer padded to the long ones.
 *
 * Every term of the loss is a mean over the minibatch's policy tokens, so the minibatch's gradient is
 * the sum of the chunks' gradients, each chunk's loss weighted by its share of those tokens.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ExperimentConfig } from '../experiment';
import type { GPT } from '../model/gpt';
import { klPenalty } from './kl';
import { clippedValueLoss, maskedMean, ppoPolicyLoss, tokenLogProbsAndEntropy } from './ppoLoss';
import { disposeMinibatch, minibatchTensors, type TrainingSequence } from './trainingBatch';

/** Fewer rows than this per chunk would spend more on kernel launches than padding costs. */
export const MIN_CHUNK_ROWS = 16;
const CHUNKS = 4;

export interface MinibatchGradients {
  grads: tf.NamedTensorMap;
  clipFraction: number;
  valueLoss: number;
  entropy: number;
}

/** Rows per chunk for `rows` rows: a quarter of them, but not fewer than MIN_CHUNK_ROWS. */
export function chunkRows(rows: number): number {
  return Math.max(MIN_CHUNK_ROWS, Math.ceil(rows / CHUNKS));
}

/** Rows sorted by length, cut into chunks of `rowsPerChunk` (the last may be shorter). */
export function lengthChunks(sequences: TrainingSequence[], rowsPerChunk: number): TrainingSequence[][] {
  const sorted = [...sequences].sort((a, b) => a.ids.length - b.ids.length);
  const chunks: TrainingSequence[][] = [];
  for (let start = 0; start < sorted.length; start += rowsPerChunk) chunks.push(sorted.slice(start, start + rowsPerChunk));
  return chunks;
}

const policyTokens = (sequences: TrainingSequence[]) => sequences.reduce((n, s) => n + s.policyMask.reduce((a, m) => a + m, 0), 0);

/** The caller disposes `grads`. */
export async function minibatchGradients(
  model: GPT,
  sequences: TrainingSequence[],
  config: ExperimentConfig,
  rowsPerChunk = chunkRows(sequences.length),
): Promise<MinibatchGradients> {
  const variables = model.trainableVariables();
  const useCritic = config.algorithm === 'ppo';
  const total = Math.max(policyTokens(sequences), 1e-8);
  let grads: tf.NamedTensorMap = {};
  const figures = { clipFraction: 0, valueLoss: 0, entropy: 0 };
  for (const chunk of lengthChunks(sequences, rowsPerChunk)) {
    const share = policyTokens(chunk) / total;
    if (share === 0) continue;
    const batch = minibatchTensors(chunk);
    let chunkFigures: tf.Tensor[] = [];
    const { value, grads: chunkGrads } = tf.variableGrads(() => {
      const { logits, values } = model.forward(batch.inputs);
      const { logProbs, entropy } = tokenLogProbsAndEntropy(logits, batch.targets, config.temperature);
      const policy = ppoPolicyLoss(logProbs, batch.oldLogProbs, batch.advantages, batch.mask, config.clipEps);
      let loss: tf.Scalar = policy.loss;
      const valueLoss = useCritic ? clippedValueLoss(values, batch.oldValues, batch.returns, batch.mask, config.valueClip) : tf.scalar(0);
      if (useCritic) loss = tf.add(loss, tf.mul(valueLoss, config.valueCoef));
      if (config.klCoef > 0) {
        loss = tf.add(loss, tf.mul(klPenalty(logProbs, batch.refLogProbs, batch.mask, config.klEstimator), config.klCoef));
      }
      chunkFigures = [policy.clipFraction, valueLoss, maskedMean(entropy, batch.mask)].map((t) => tf.keep(t));
      return tf.mul(loss, share);
    }, variables);
    const summed = tf.tidy(() => Object.fromEntries(Object.entries(chunkGrads).map(([name, g]) => [name, grads[name] ? tf.add(grads[name], g) : tf.clone(g)])));
    tf.dispose([value, ...Object.values(chunkGrads), ...Object.values(grads)]);
    grads = summed;
    const [clipFraction, valueLoss, entropy] = await Promise.all(chunkFigures.map((t) => t.data()));
    tf.dispose(chunkFigures);
    disposeMinibatch(batch);
    figures.clipFraction += share * clipFraction[0];
    figures.valueLoss += share * valueLoss[0];
    figures.entropy += share * entropy[0];
  }
  return { grads, ...figures };
}
