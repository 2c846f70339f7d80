/**
 * KL to the frozen reference (the run's start model), estimated from the sampled tokens' log-probs:
 * the penalty in the loss, and the figure the trainer logs.
 *
 * Guard rails, as verl's kl_penalty and OpenRLHF's compute_approx_kl have them: k3's exponent
 * q - p is clamped to [-20, 20] before exp (verl), and each token's estimate is clamped to
 * [-10, 10] (verl for k3, OpenRLHF for every estimator), so one token the policy has all but ruled
 * out cannot dominate the penalty or its gradient. Inside the bands nothing changes.
 */
import * as tf from '@tensorflow/tfjs-core';
import { LOG_RATIO_LIMIT, maskedMean } from './ppoLoss';

/** k1: log p - log q, unbiased but noisy and often negative; k3: Schulman's low-variance, never-negative estimator. */
export type KlEstimator = 'k1' | 'k3';

/** Bound on one token's KL estimate (verl's and OpenRLHF's). */
export const KL_ESTIMATE_LIMIT = 10;

/**
 * Masked mean over policy tokens of the chosen estimator of KL(policy || reference), with p the
 * policy's and q the reference's log-prob of each sampled token: k1 = p - q,
 * k3 = exp(q - p) - (q - p) - 1, each token's estimate clamped as the header says. Differentiable
 * in logProbs (a clamped token has gradient 0).
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
    const perToken = () => {
      if (estimator === 'k1') return tf.sub(logProbs, refLogProbs);
      const refMinusPolicy = tf.clipByValue(tf.sub(refLogProbs, logProbs), -LOG_RATIO_LIMIT, LOG_RATIO_LIMIT);
      return tf.sub(tf.sub(tf.exp(refMinusPolicy), refMinusPolicy), 1);
    };
    return maskedMean(tf.clipByValue(perToken(), -KL_ESTIMATE_LIMIT, KL_ESTIMATE_LIMIT), mask);
  });
}

/**
 * The KL the trainer logs: the mean over the policy tokens of the rollouts of log pi_old - log
 * pi_ref (k1 at the sampled tokens, whose expectation under the policy is KL(policy || reference),
 * so it grows as the policy leaves the reference).
 */
export function meanSampledKl(sequences: { policyMask: ArrayLike<number>; oldLogProbs: ArrayLike<number>; refLogProbs?: ArrayLike<number> }[]): number {
  let sum = 0;
  let count = 0;
  for (const s of sequences) {
    if (s.refLogProbs === undefined) throw new Error('meanSampledKl: a sequence has no reference log-probs');
    for (let i = 0; i < s.policyMask.length; i++) {
      if (s.policyMask[i] === 1) {
        sum += s.oldLogProbs[i] - s.refLogProbs[i];
        count++;
      }
    }
  }
  return count === 0 ? 0 : sum / count;
}
