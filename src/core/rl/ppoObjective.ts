/**
 * The objective one update minimises, assembled from its terms in one place:
 *   loss = policy loss (clipped surrogate, ppoLoss.ts)
 *        + valueCoef * clipped value loss   (with a critic: PPO's, not Reinforce++'s or GRPO's; algorithms.ts)
 *        + klCoef * KL penalty to the reference   (kl.ts; only when klCoef > 0)
 * with the figures the step logs beside it. The gradient code (minibatchGradients.ts) only weights
 * this by a chunk's share of the minibatch's policy tokens.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ExperimentConfig } from '../experiment';
import { ALGORITHMS } from './algorithms';
import { klPenalty } from './kl';
import { clippedValueLoss, maskedMean, ppoPolicyLoss } from './ppoLoss';
import type { MinibatchTensors } from './trainingBatch';

export type ObjectiveKnobs = Pick<ExperimentConfig, 'algorithm' | 'clipEps' | 'dualClip' | 'valueClip' | 'valueCoef' | 'klCoef' | 'klEstimator'>;

/** What the model gives at the response positions: [N, T] each. */
export interface PolicyOutputs {
  logProbs: tf.Tensor2D;
  entropy: tf.Tensor2D;
  values: tf.Tensor2D;
}

export type ObjectiveTargets = Pick<MinibatchTensors, 'mask' | 'oldLogProbs' | 'oldValues' | 'advantages' | 'returns' | 'refLogProbs'>;

export interface ObjectiveTerms {
  loss: tf.Scalar;
  clipFraction: tf.Scalar;
  /** KL(old || new) of this update (k3), the step size PPO's clip bounds. */
  approxKl: tf.Scalar;
  /** 0 without a critic. */
  valueLoss: tf.Scalar;
  entropy: tf.Scalar;
}

/** Fresh scalars (differentiable in the outputs); the caller disposes them. */
export function ppoObjective(outputs: PolicyOutputs, targets: ObjectiveTargets, knobs: ObjectiveKnobs): ObjectiveTerms {
  return tf.tidy(() => {
    const { mask } = targets;
    const policy = ppoPolicyLoss(outputs.logProbs, targets.oldLogProbs, targets.advantages, mask, knobs.clipEps, knobs.dualClip);
    const { usesCritic } = ALGORITHMS[knobs.algorithm];
    const valueLoss = usesCritic ? clippedValueLoss(outputs.values, targets.oldValues, targets.returns, mask, knobs.valueClip) : tf.scalar(0);
    let loss: tf.Scalar = policy.loss;
    if (usesCritic) loss = tf.add(loss, tf.mul(valueLoss, knobs.valueCoef));
    if (knobs.klCoef > 0) loss = tf.add(loss, tf.mul(klPenalty(outputs.logProbs, targets.refLogProbs, mask, knobs.klEstimator), knobs.klCoef));
    return { loss, clipFraction: policy.clipFraction, approxKl: policy.approxKl, valueLoss, entropy: maskedMean(outputs.entropy, mask) };
  });
}
