/**
 * The model's per-token log-probabilities of given targets, and the entropy at each position: what
 * the next-token loss (pretraining, the cold start) and the PPO objective are built from.
 */
import * as tf from '@tensorflow/tfjs-core';

/**
 * From logits [N, T, V] and target ids [N, T] (int32): log softmax(logits / temperature) at each
 * target, and the entropy of that distribution. The target is picked by a one-hot product and sum,
 * not a gather, because the wasm backend lacks the kernel gather's gradient needs.
 */
export function tokenLogProbsAndEntropy(
  logits: tf.Tensor3D,
  targets: tf.Tensor2D,
  temperature: number,
): { logProbs: tf.Tensor2D; entropy: tf.Tensor2D } {
  if (!(temperature > 0)) throw new RangeError(`temperature must be positive, got ${temperature}`);
  const [n, t, vocab] = logits.shape;
  tf.util.assertShapesMatch([n, t], targets.shape, 'tokenLogProbsAndEntropy: targets');
  if (targets.dtype !== 'int32') throw new TypeError(`targets must be int32, got ${targets.dtype}`);
  return tf.tidy(() => {
    const logDistribution = tf.logSoftmax(tf.div(logits, temperature));
    const picked = tf.cast(tf.oneHot(targets, vocab), 'float32');
    const logProbs = tf.sum(tf.mul(logDistribution, picked), -1) as tf.Tensor2D;
    const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logDistribution), logDistribution), -1)) as tf.Tensor2D;
    return { logProbs, entropy };
  });
}
