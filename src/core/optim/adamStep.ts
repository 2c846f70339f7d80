/**
 * Adam's step: tfjs's AdamOptimizer, or where the backend registers it (WebGPU:
 * src/browser/webgpu/fusedKernels.ts) one fused kernel per variable, which keeps the optimizer's own
 * state, so the two can follow one another; and the step size, set between updates.
 */
import * as tf from '@tensorflow/tfjs-core';
import { FUSED_KERNELS, hasFusedKernel } from '../model/fusedOps';

/** Adam's hyperparameters and bias corrections (1 - beta^t) for one step, as the kernel's attributes. */
export interface AdamStepAttrs {
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
  firstCorrection: number;
  secondCorrection: number;
}

/**
 * One Adam step for one variable, as tfjs's AdamOptimizer computes it:
 *   m' = beta1 m + (1 - beta1) g,  v' = beta2 v + (1 - beta2) g^2,
 *   value' = value - learningRate (m' / c1) / (sqrt(v' / c2) + epsilon).
 * Inputs { value, m, v, gradient } (same shape), attrs AdamStepAttrs; outputs [value', m', v'].
 */
export function adamUpdate(value: tf.Tensor, m: tf.Tensor, v: tf.Tensor, gradient: tf.Tensor, attrs: AdamStepAttrs): tf.Tensor[] {
  const kernelAttrs = { ...attrs } as unknown as tf.NamedAttrMap;
  return tf.engine().runKernel(FUSED_KERNELS.adamUpdate, { value, m, v, gradient }, kernelAttrs) as tf.Tensor[];
}

/** tfjs's AdamOptimizer state, which is protected in its typings; the fused step reads and updates it in place. */
export interface AdamInternals {
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
  accBeta1: tf.Variable;
  accBeta2: tf.Variable;
  accumulatedFirstMoment: { originalName: string; variable: tf.Variable }[];
  accumulatedSecondMoment: { originalName: string; variable: tf.Variable }[];
  incrementIterations(): void;
}

/** Sets an optimizer's step size between updates: tfjs keeps it protected, and both its own and the fused step read it at each update. */
export function setLearningRate(optimizer: tf.Optimizer, rate: number): void {
  (optimizer as unknown as { learningRate: number }).learningRate = rate;
}

/**
 * optimizer.applyGradients(grads), with one fused kernel per variable where the backend has it and the
 * optimizer is tfjs's Adam (tfjs spends 14 kernels per variable). The fused step keeps the optimizer's
 * own state (moments matched to variables by position, as tfjs does, and the beta powers and
 * iteration count), so fused and plain steps can follow one another.
 */
export function applyGradients(optimizer: tf.Optimizer, grads: tf.NamedTensorMap): void {
  if (!(optimizer instanceof tf.AdamOptimizer) || !hasFusedKernel(FUSED_KERNELS.adamUpdate)) {
    optimizer.applyGradients(grads);
    return;
  }
  const adam = optimizer as unknown as AdamInternals;
  const step = optimizer.iterations + 1;
  const attrs: AdamStepAttrs = {
    learningRate: adam.learningRate,
    beta1: adam.beta1,
    beta2: adam.beta2,
    epsilon: adam.epsilon,
    firstCorrection: 1 - adam.beta1 ** step,
    secondCorrection: 1 - adam.beta2 ** step,
  };
  tf.tidy(() => {
    Object.keys(grads).forEach((name, i) => {
      const value = tf.engine().registeredVariables[name];
      adam.accumulatedFirstMoment[i] ??= { originalName: `${name}/m`, variable: tf.tidy(() => tf.zerosLike(value).variable(false)) };
      adam.accumulatedSecondMoment[i] ??= { originalName: `${name}/v`, variable: tf.tidy(() => tf.zerosLike(value).variable(false)) };
      const m = adam.accumulatedFirstMoment[i].variable;
      const v = adam.accumulatedSecondMoment[i].variable;
      const [newValue, newM, newV] = adamUpdate(value, m, v, grads[name], attrs);
      value.assign(newValue);
      m.assign(newM);
      v.assign(newV);
    });
    // beta^(t+1), as tfjs's own step leaves them (and as its setWeights restores them).
    adam.accBeta1.assign(tf.scalar(adam.beta1 ** (step + 1)));
    adam.accBeta2.assign(tf.scalar(adam.beta2 ** (step + 1)));
  });
  adam.incrementIterations();
}
