/**
 * What a policy update changes, kept so that a step failing after its update started can be undone:
 * the weights and tfjs Adam's state (moments, beta powers, step count). The copies share the
 * tensors' data (a variable's assign gives it new data and leaves the old to whoever still holds
 * it), so taking them copies nothing; they hold one more set of weights and moments while a step
 * updates.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { AdamInternals } from './adamStep';
import type { GPT } from '../model/gpt';

type AdamFields = AdamInternals & { iterations_: number };

export class UpdateRollback {
  private readonly adam: AdamFields;
  private readonly weights: tf.Tensor[];
  private readonly firstMoments: tf.Tensor[];
  private readonly secondMoments: tf.Tensor[];
  private readonly accBeta1: tf.Tensor;
  private readonly accBeta2: tf.Tensor;
  private readonly iterations: number;

  constructor(
    private readonly model: GPT,
    optimizer: tf.AdamOptimizer,
  ) {
    const adam = (this.adam = optimizer as unknown as AdamFields);
    this.weights = model.trainableVariables().map((w) => tf.clone(w));
    // The first update creates the moments: before it there are none to keep.
    this.firstMoments = adam.accumulatedFirstMoment.map(({ variable }) => tf.clone(variable));
    this.secondMoments = adam.accumulatedSecondMoment.map(({ variable }) => tf.clone(variable));
    this.accBeta1 = tf.clone(adam.accBeta1);
    this.accBeta2 = tf.clone(adam.accBeta2);
    this.iterations = adam.iterations_;
  }

  /** Puts the weights and the optimizer back as they were when this was taken. */
  restore(): void {
    this.model.trainableVariables().forEach((w, i) => w.assign(this.weights[i]));
    restoreMoments(this.adam.accumulatedFirstMoment, this.firstMoments);
    restoreMoments(this.adam.accumulatedSecondMoment, this.secondMoments);
    this.adam.accBeta1.assign(this.accBeta1);
    this.adam.accBeta2.assign(this.accBeta2);
    this.adam.iterations_ = this.iterations;
  }

  dispose(): void {
    tf.dispose([...this.weights, ...this.firstMoments, ...this.secondMoments, this.accBeta1, this.accBeta2]);
  }
}

/** The moments kept get their values back; those the failed update created are freed (the next update makes them afresh). */
function restoreMoments(moments: AdamInternals['accumulatedFirstMoment'], kept: tf.Tensor[]): void {
  moments.slice(kept.length).forEach(({ variable }) => variable.dispose());
  moments.length = kept.length;
  kept.forEach((values, i) => moments[i].variable.assign(values));
}
