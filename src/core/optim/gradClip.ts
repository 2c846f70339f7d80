/**
 * Gradient clipping by global norm: all gradients are scaled by one factor so that their joint L2
 * norm is at most maxNorm, which keeps the update's direction.
 */
import * as tf from '@tensorflow/tfjs-core';

/**
 * New gradient tensors scaled by maxNorm / max(norm, maxNorm), and the norm before clipping. The
 * caller disposes both the inputs and the outputs. A non-finite norm (a NaN or Infinity in some
 * gradient) is returned as is with unscaled copies: the caller should skip that step.
 */
export async function clipByGlobalNorm(grads: tf.NamedTensorMap, maxNorm: number): Promise<{ grads: tf.NamedTensorMap; norm: number }> {
  if (!(maxNorm > 0)) throw new RangeError(`maxNorm must be positive, got ${maxNorm}`);
  const names = Object.keys(grads);
  if (names.length === 0) return { grads: {}, norm: 0 };
  // An async read: on tfjs-webgpu a dataSync followed by any data() loses the device (measured in the lab's worker).
  const normTensor = tf.tidy(() => tf.sqrt(sumScalars(names.map((name) => tf.sum(tf.square(grads[name]))))));
  const norm = (await normTensor.data())[0];
  normTensor.dispose();
  const scale = Number.isFinite(norm) && norm > maxNorm ? maxNorm / norm : 1;
  const clipped = tf.tidy(() => {
    const out: tf.NamedTensorMap = {};
    for (const name of names) out[name] = scale === 1 ? tf.clone(grads[name]) : tf.mul(grads[name], scale);
    return out;
  });
  return { grads: clipped, norm };
}

/**
 * WebGPU binds at most 8 storage buffers per shader (the default limit), and tfjs-webgpu's AddN binds
 * one per input plus the output: given more, the pipeline is invalid and the read returns a stale
 * buffer without an error (the model's 43 gradients did). So add at most 7 at a time.
 */
const MAX_ADD_INPUTS = 7;

function sumScalars(terms: tf.Tensor[]): tf.Tensor {
  if (terms.length === 1) return terms[0];
  const partial: tf.Tensor[] = [];
  for (let i = 0; i < terms.length; i += MAX_ADD_INPUTS) {
    const group = terms.slice(i, i + MAX_ADD_INPUTS);
    partial.push(group.length === 1 ? group[0] : tf.addN(group));
  }
  return sumScalars(partial);
}
