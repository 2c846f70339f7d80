/**
 * Turns scored rollouts into the padded arrays one PPO minibatch needs. Position t of a row
 * predicts token t+1 of BOS + prompt + response, so the loss mask is 1 exactly where token t+1
 * is a policy token (prompt and environment tokens carry no loss).
 */
import * as tf from '@tensorflow/tfjs-core';
import { BOS, PAD } from '../tokenizer';
import type { Rollout } from '../rollout/rollout';

export interface TrainingSequence {
  /** BOS + prompt + response token ids. */
  ids: number[];
  /** Index in `ids` of the first response token. */
  responseStart: number;
  policyMask: number[];
  oldLogProbs: number[];
  oldValues: number[];
  advantages: ArrayLike<number>;
  returns: ArrayLike<number>;
  refLogProbs?: ArrayLike<number>;
}

export function trainingSequence(
  rollout: Rollout,
  advantages: ArrayLike<number>,
  returns: ArrayLike<number>,
): TrainingSequence {
  const ep = rollout.episode;
  return {
    ids: [BOS, ...ep.promptIds, ...ep.tokens],
    responseStart: 1 + ep.promptIds.length,
    policyMask: ep.policyMask,
    oldLogProbs: rollout.logProbs,
    oldValues: rollout.values,
    advantages,
    returns,
  };
}

export interface MinibatchTensors {
  inputs: tf.Tensor2D;
  targets: tf.Tensor2D;
  mask: tf.Tensor2D;
  oldLogProbs: tf.Tensor2D;
  oldValues: tf.Tensor2D;
  advantages: tf.Tensor2D;
  returns: tf.Tensor2D;
  refLogProbs: tf.Tensor2D;
}

/** Per-response-token arrays laid out on the [N, T] grid of input positions. */
export function minibatchTensors(sequences: TrainingSequence[]): MinibatchTensors {
  const width = Math.max(...sequences.map((s) => s.ids.length)) - 1;
  const n = sequences.length;
  const inputs = new Int32Array(n * width).fill(PAD);
  const targets = new Int32Array(n * width).fill(PAD);
  const grids = {
    mask: new Float32Array(n * width),
    oldLogProbs: new Float32Array(n * width),
    oldValues: new Float32Array(n * width),
    advantages: new Float32Array(n * width),
    returns: new Float32Array(n * width),
    refLogProbs: new Float32Array(n * width),
  };
  sequences.forEach((seq, row) => {
    const base = row * width;
    for (let t = 0; t < seq.ids.length - 1; t++) {
      inputs[base + t] = seq.ids[t];
      targets[base + t] = seq.ids[t + 1];
    }
    for (let i = 0; i < seq.policyMask.length; i++) {
      const at = base + seq.responseStart - 1 + i;
      grids.mask[at] = seq.policyMask[i];
      grids.oldLogProbs[at] = seq.oldLogProbs[i];
      grids.oldValues[at] = seq.oldValues[i];
      grids.advantages[at] = seq.advantages[i];
      grids.returns[at] = seq.returns[i];
      grids.refLogProbs[at] = seq.refLogProbs?.[i] ?? 0;
    }
  });
  const grid = (data: Float32Array) => tf.tensor2d(data, [n, width]);
  return {
    inputs: tf.tensor2d(inputs, [n, width], 'int32'),
    targets: tf.tensor2d(targets, [n, width], 'int32'),
    mask: grid(grids.mask),
    oldLogProbs: grid(grids.oldLogProbs),
    oldValues: grid(grids.oldValues),
    advantages: grid(grids.advantages),
    returns: grid(grids.returns),
    refLogProbs: grid(grids.refLogProbs),
  };
}

export function disposeMinibatch(batch: MinibatchTensors): void {
  tf.dispose(Object.values(batch));
}
