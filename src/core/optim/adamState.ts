/**
 * Reads and restores tfjs Adam's state (step count, bias-correction powers, moments), which tfjs
 * keeps protected; the fused Adam step (model/fusedOps.ts) works on the same fields. Reads are
 * asynchronous, so saving never forces a synchronous GPU readback.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { AdamInternals } from './adamStep';
import type { GPT } from '../model/gpt';

/**
 * Adam beyond the weights. Moments are one per weight in the model's weight order (how tfjs matches
 * them to variables), empty before the first update. The bias-correction powers are kept as the
 * optimizer holds them (float32 products) rather than recomputed, so the next step is bit-equal.
 */
export interface AdamState {
  iterations: number;
  accBeta1: number;
  accBeta2: number;
  firstMoments: Float32Array[];
  secondMoments: Float32Array[];
}

type AdamFields = AdamInternals & { iterations_: number };

export async function readAdamState(optimizer: tf.AdamOptimizer): Promise<AdamState> {
  const adam = optimizer as unknown as AdamFields;
  const read = (moments: AdamInternals['accumulatedFirstMoment']) =>
    Promise.all(moments.map(async ({ variable }) => Float32Array.from(await variable.data())));
  const [[accBeta1], [accBeta2], firstMoments, secondMoments] = await Promise.all([
    adam.accBeta1.data(),
    adam.accBeta2.data(),
    read(adam.accumulatedFirstMoment),
    read(adam.accumulatedSecondMoment),
  ]);
  return { iterations: optimizer.iterations, accBeta1, accBeta2, firstMoments, secondMoments };
}

/** Puts a saved state into a fresh optimizer for `model` (the moments' shapes are its weights'). */
export function restoreAdamState(optimizer: tf.AdamOptimizer, model: GPT, state: AdamState): void {
  const adam = optimizer as unknown as AdamFields;
  const variables = model.trainableVariables();
  for (const moments of [state.firstMoments, state.secondMoments]) {
    if (moments.length !== 0 && moments.length !== variables.length) {
      throw new Error(`optimizer state has ${moments.length} moments, the model has ${variables.length} weights`);
    }
    moments.forEach((values, i) => {
      if (values.length !== variables[i].size) throw new Error(`optimizer moment ${i} has ${values.length} values, its weight ${variables[i].size}`);
    });
  }
  const toVariables = (moments: Float32Array[], suffix: string) =>
    moments.map((values, i) => ({
      originalName: `${variables[i].name}/${suffix}`,
      variable: tf.tidy(() => tf.tensor(values, variables[i].shape).variable(false)),
    }));
  tf.dispose([...adam.accumulatedFirstMoment, ...adam.accumulatedSecondMoment].map((m) => m.variable));
  adam.accumulatedFirstMoment = toVariables(state.firstMoments, 'm');
  adam.accumulatedSecondMoment = toVariables(state.secondMoments, 'v');
  tf.tidy(() => {
    adam.accBeta1.assign(tf.scalar(state.accBeta1));
    adam.accBeta2.assign(tf.scalar(state.accBeta2));
  });
  adam.iterations_ = state.iterations;
}
