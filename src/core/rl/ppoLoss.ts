/**
 * The PPO losses (tfjs, differentiable), built from the per-token log-probabilities of
 * model/tokenLogProbs.ts.
 *
 * Inputs are [N, T] tensors over response tokens; `mask` is float 0/1 with 1 at policy tokens, so
 * environment tokens and padding carry no loss. Means are token-level over every masked token of
 * the batch (not per sequence first). Entries outside the mask must still be finite: they are
 * multiplied by 0, and 0 * Infinity is NaN. Every function returns fresh tensors and leaks none.
 *
 * Two guard rails, as verl's compute_policy_loss has them (OpenRLHF has the second as an option):
 * - the log-ratio is clamped to [-20, 20] before exp, so a token whose probability collapsed cannot
 *   make the ratio Infinity (and the loss NaN); inside the band nothing changes;
 * - dual-clip PPO (Ye et al. 2020, verl's clip_ratio_c): where the advantage is negative the
 *   surrogate is bounded below by dualClip * A, so a token whose ratio ran far above 1 + eps cannot
 *   push an unbounded gradient. It acts only where ratio > dualClip.
 */
import * as tf from '@tensorflow/tfjs-core';

/** Sum of x over the mask divided by the mask's sum; 0 when the mask is empty. */
export function maskedMean(x: tf.Tensor, mask: tf.Tensor): tf.Scalar {
  return tf.tidy(() => {
    // the floor only matters for an empty mask, where the sum on top is 0 too
    const count = tf.maximum(tf.sum(mask), 1e-8);
    return tf.div(tf.sum(tf.mul(x, mask)), count) as tf.Scalar;
  });
}

/** Bound on a log-ratio before exp (verl's): exp(20) is 4.9e8, far inside float32. */
export const LOG_RATIO_LIMIT = 20;

/**
 * Clipped surrogate: loss = -mean(min(ratio * A, clip(ratio, 1 - eps, 1 + eps) * A)), ratio =
 * exp(clamp(logProbs - oldLogProbs, +-LOG_RATIO_LIMIT)); with dualClip = c > 1, the surrogate of a
 * token with A < 0 is max(that, c * A) (0 turns the dual clip off). clipFraction is the share of
 * masked tokens where the clipped term is the one taken (its gradient is cut). approxKl estimates
 * KL(old || new) by Schulman's k3, mean((ratio - 1) - log ratio), which is never negative.
 */
export function ppoPolicyLoss(
  logProbs: tf.Tensor2D,
  oldLogProbs: tf.Tensor2D,
  advantages: tf.Tensor2D,
  mask: tf.Tensor2D,
  clipEps: number,
  dualClip = 0,
): { loss: tf.Scalar; clipFraction: tf.Scalar; approxKl: tf.Scalar } {
  tf.util.assertShapesMatch(logProbs.shape, oldLogProbs.shape, 'ppoPolicyLoss: oldLogProbs');
  tf.util.assertShapesMatch(logProbs.shape, advantages.shape, 'ppoPolicyLoss: advantages');
  tf.util.assertShapesMatch(logProbs.shape, mask.shape, 'ppoPolicyLoss: mask');
  if (dualClip !== 0 && !(dualClip > 1)) throw new RangeError(`dualClip must be 0 (off) or above 1, got ${dualClip}`);
  return tf.tidy(() => {
    const logRatio = tf.clipByValue(tf.sub(logProbs, oldLogProbs), -LOG_RATIO_LIMIT, LOG_RATIO_LIMIT);
    const ratio = tf.exp(logRatio);
    const unclipped = tf.mul(ratio, advantages);
    const clipped = tf.mul(tf.clipByValue(ratio, 1 - clipEps, 1 + clipEps), advantages);
    // unclipped first: on a tie tf.minimum sends the gradient to its first argument
    const surrogate = tf.minimum(unclipped, clipped);
    // Dual clip as max(surrogate, c * min(A, 0)): where A >= 0 the surrogate is A * (a positive
    // ratio) >= 0 and stays, so no select is needed (half the cost of one). The surrogate first
    // again: on a tie tf.maximum keeps its gradient.
    const bounded = dualClip > 0 ? tf.maximum(surrogate, tf.mul(tf.minimum(advantages, 0), dualClip)) : surrogate;
    const loss = tf.neg(maskedMean(bounded, mask));
    const clipFraction = maskedMean(tf.cast(tf.less(clipped, unclipped), 'float32'), mask);
    const approxKl = maskedMean(tf.sub(tf.sub(ratio, 1), logRatio), mask);
    return { loss, clipFraction, approxKl };
  });
}

/**
 * Clipped value loss: 0.5 * mean(max((v - R)^2, (old + clip(v - old, -c, c) - R)^2)), which keeps
 * the critic from moving more than clipRange away from the values the rollout was scored with.
 */
export function clippedValueLoss(
  values: tf.Tensor2D,
  oldValues: tf.Tensor2D,
  returns: tf.Tensor2D,
  mask: tf.Tensor2D,
  clipRange: number,
): tf.Scalar {
  tf.util.assertShapesMatch(values.shape, oldValues.shape, 'clippedValueLoss: oldValues');
  tf.util.assertShapesMatch(values.shape, returns.shape, 'clippedValueLoss: returns');
  tf.util.assertShapesMatch(values.shape, mask.shape, 'clippedValueLoss: mask');
  return tf.tidy(() => {
    const clippedValues = tf.add(oldValues, tf.clipByValue(tf.sub(values, oldValues), -clipRange, clipRange));
    const worst = tf.maximum(tf.squaredDifference(values, returns), tf.squaredDifference(clippedValues, returns));
    return tf.mul(maskedMean(worst, mask), 0.5) as tf.Scalar;
  });
}
