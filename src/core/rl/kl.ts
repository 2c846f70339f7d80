/**
 * KL penalty to the frozen reference (base) model, estimated from the sampled tokens' log-probs.
 */
import * as tf from '@tensorflow/tfjs-core';
import { maskedMean } from './ppoLoss';

/** k1: log p - log q, unbiased but noisy and often negative; k3: Schulman's low-variance, never-negative estimator. */
export type KlEstimator = 'k1' | 'k3';

/**
 * Masked mean over policy tokens of the chosen estimator of KL(policy || reference), with p the
 * policy's and q the reference's log-prob of each sampled token: k1 = p - q,
 * k3 = exp(q - p) - (q - p) - 1. Differentiable in logProbs.
 */
export function klPenalty(
  logProbs: tf.Tensor2D,
  refLogProbs: tf.Tensor2D,
  mask: tf.Tensor2D,
  estimator: KlEstimator,
): tf.Scalar {
  tf.util.assertShapesMatch(logProbs.shape, refLogProbs.shape, 'klPenalty: refLogProbs');
  tf.util.assertShapesMatch(logProbs.shape, mask.shape, 'klPenalty: mask');
  return tf.tidy(() => {
    if (estimator === 'k1') return maskedMean(tf.sub(logProbs, refLogProbs), mask);
    const refMinusPolicy = tf.sub(refLogProbs, logProbs);
    return maskedMean(tf.sub(tf.sub(tf.exp(refMinusPolicy), refMinusPolicy), 1), mask);
  });
}
