import * as tf from '@tensorflow/tfjs-core';
// tfjs-core registers no gradients by itself (the tfjs union package does); the engine must too
import '@tensorflow/tfjs-core/dist/register_all_gradients';
import { describe, expect, it } from 'vitest';
import { tokenLogProbsAndEntropy } from '../src/core/model/tokenLogProbs';
import { clippedValueLoss, LOG_RATIO_LIMIT, maskedMean, ppoPolicyLoss } from '../src/core/rl/ppoLoss';
import { useWasmCheckingTensors } from './modelHelpers';

useWasmCheckingTensors();

function expectClose(actual: ArrayLike<number>, expected: number[], digits = 5): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) expect(actual[i]).toBeCloseTo(expected[i], digits);
}

describe('maskedMean', () => {
  it('averages over the mask and gives 0 for an empty mask', () => {
    const x = tf.tensor2d([[1, 2, 30]]);
    const firstTwo = tf.tensor2d([[1, 1, 0]]);
    const empty = tf.zeros([1, 3]);
    const some = maskedMean(x, firstTwo);
    const none = maskedMean(x, empty);
    expect(some.dataSync()[0]).toBeCloseTo(1.5, 6);
    expect(none.dataSync()[0]).toBe(0);
    tf.dispose([x, firstTwo, empty, some, none]);
  });
});

describe('ppoPolicyLoss', () => {
  // clipEps 0.2, all old log-probs -1, new = -1 + ln(ratio). Tokens (ratio, advantage):
  //   a (1.1, +1) inside:            min(1.1, 1.1)   =  1.1   not clipped
  //   b (1.5, +1) above, A > 0:      min(1.5, 1.2)   =  1.2   clipped
  //   c (0.5, -1) below, A < 0:      min(-0.5, -0.8) = -0.8   clipped
  //   d (1.5, -1) above, A < 0:      min(-1.5, -1.2) = -1.5   not clipped (pessimistic side)
  //   e (0.5, +2) below, A > 0:      min(1.0, 1.6)   =  1.0   not clipped
  //   f masked out (ratio 3, A 5)
  // loss = -(1.1 + 1.2 - 0.8 - 1.5 + 1.0)/5 = -0.2; clipFraction = 2/5 = 0.4
  // approxKl = mean((r - 1) - ln r): 1.1 -> 0.0046898, 1.5 -> 0.0945349 (x2), 0.5 -> 0.1931472 (x2)
  //   = 0.5800540 / 5 = 0.1160108
  // d loss / d logp = -A * ratio / 5 where not clipped, else 0:
  //   a -0.22, b 0, c 0, d +0.3, e -0.2, f 0
  const ratios = [
    [1.1, 1.5, 0.5],
    [1.5, 0.5, 3],
  ];
  const advantageValues = [
    [1, 1, -1],
    [-1, 2, 5],
  ];
  const maskValues = [
    [1, 1, 1],
    [1, 1, 0],
  ];

  it('matches the hand-computed loss, clip fraction, approximate KL and gradient', () => {
    const old = tf.fill([2, 3], -1) as tf.Tensor2D;
    const logProbs = tf.tidy(() => tf.add(old, tf.log(tf.tensor2d(ratios)))) as tf.Tensor2D;
    const advantages = tf.tensor2d(advantageValues);
    const mask = tf.tensor2d(maskValues);

    const out = ppoPolicyLoss(logProbs, old, advantages, mask, 0.2);
    expect(out.loss.shape).toEqual([]);
    expect(out.loss.dataSync()[0]).toBeCloseTo(-0.2, 5);
    expect(out.clipFraction.dataSync()[0]).toBeCloseTo(0.4, 6);
    expect(out.approxKl.dataSync()[0]).toBeCloseTo(0.1160108, 5);

    const grad = tf.grad((lp: tf.Tensor) => ppoPolicyLoss(lp as tf.Tensor2D, old, advantages, mask, 0.2).loss)(logProbs);
    expectClose(grad.dataSync(), [-0.22, 0, 0, 0.3, -0.2, 0]);

    tf.dispose([old, logProbs, advantages, mask, out.loss, out.clipFraction, out.approxKl, grad]);
  });

  it('is -mean(A) with no clipping and zero KL when the policy has not moved', () => {
    // ratio 1 everywhere: loss = -(1 + 1 - 1 - 1 + 2)/5 = -0.4
    const old = tf.fill([2, 3], -2) as tf.Tensor2D;
    const advantages = tf.tensor2d(advantageValues);
    const mask = tf.tensor2d(maskValues);
    const out = ppoPolicyLoss(old, old, advantages, mask, 0.2);
    expect(out.loss.dataSync()[0]).toBeCloseTo(-0.4, 6);
    expect(out.clipFraction.dataSync()[0]).toBe(0);
    expect(out.approxKl.dataSync()[0]).toBeCloseTo(0, 7);
    tf.dispose([old, advantages, mask, out.loss, out.clipFraction, out.approxKl]);
  });

  it('with dual clip c = 3 bounds a negative-advantage token at 3 * A, and cuts its gradient there', () => {
    // clipEps 0.2, old log-probs 0. Tokens (ratio, advantage), surrogate min(rA, clip(r)A), then max(., 3A) where A < 0:
    //   a (4, -1):   min(-4, -1.2) = -4    -> max(-4, -3) = -3       dual-clipped: gradient 0 (without: -A r / 4 = 1)
    //   b (2, -1):   min(-2, -1.2) = -2    -> max(-2, -3) = -2       gradient -A r / 4 = 0.5
    //   c (4, +1):   min(4, 1.2)   = 1.2   (A > 0: no dual clip)    clipped: gradient 0
    //   d (0.5, -2): min(-1, -1.6) = -1.6  -> max(-1.6, -6) = -1.6  clipped: gradient 0
    // loss = -(-3 - 2 + 1.2 - 1.6)/4 = 1.35; without the dual clip -(-4 - 2 + 1.2 - 1.6)/4 = 1.6
    const old = tf.zeros([1, 4]) as tf.Tensor2D;
    const logProbs = tf.tidy(() => tf.log(tf.tensor2d([[4, 2, 4, 0.5]]))) as tf.Tensor2D;
    const advantages = tf.tensor2d([[-1, -1, 1, -2]]);
    const mask = tf.ones([1, 4]) as tf.Tensor2D;
    const lossWith = (dualClip: number) => (lp: tf.Tensor) => ppoPolicyLoss(lp as tf.Tensor2D, old, advantages, mask, 0.2, dualClip).loss;
    const values = [3, 0].map((c) => tf.tidy(() => lossWith(c)(logProbs).dataSync()[0]));
    expect(values[0]).toBeCloseTo(1.35, 5);
    expect(values[1]).toBeCloseTo(1.6, 5);
    const gradients = [3, 0].map((c) => tf.tidy(() => Array.from(tf.grad(lossWith(c))(logProbs).dataSync())));
    expectClose(gradients[0], [0, 0.5, 0, 0]);
    expectClose(gradients[1], [1, 0.5, 0, 0]);
    // A dual-clip bound at or below 1 would cut tokens the policy has barely moved: refused, as verl does.
    expect(() => ppoPolicyLoss(logProbs, old, advantages, mask, 0.2, 1)).toThrow(RangeError);
    tf.dispose([old, logProbs, advantages, mask]);
  });

  it('clamps the log-ratio to +-20 before exp: a collapsed or exploded token gives a finite loss and KL, and no gradient', () => {
    // log-ratios +100 and -100 (exp(100) is Infinity in float32). With the clamp, ratio e^20 and e^-20:
    //   loss = -(e^20 * -1 + e^-20 * -1)/2 = (e^20 + e^-20)/2 (advantage -1 on both, dual clip off)
    //   approxKl = ((e^20 - 1 - 20) + (e^-20 - 1 + 20))/2 = (e^20 + e^-20 - 2)/2; without the clamp the second is 99
    const old = tf.zeros([1, 2]) as tf.Tensor2D;
    const logProbs = tf.tensor2d([[100, -100]]);
    const advantages = tf.tensor2d([[-1, -1]]);
    const mask = tf.ones([1, 2]) as tf.Tensor2D;
    const out = ppoPolicyLoss(logProbs, old, advantages, mask, 0.2, 0);
    const e20 = Math.exp(LOG_RATIO_LIMIT);
    expect(LOG_RATIO_LIMIT).toBe(20);
    expect(out.loss.dataSync()[0] / ((e20 + Math.exp(-20)) / 2)).toBeCloseTo(1, 5);
    expect(out.approxKl.dataSync()[0] / ((e20 + Math.exp(-20) - 2) / 2)).toBeCloseTo(1, 5);
    const grad = tf.grad((lp: tf.Tensor) => ppoPolicyLoss(lp as tf.Tensor2D, old, advantages, mask, 0.2, 0).loss)(logProbs);
    expect(Array.from(grad.dataSync())).toEqual([0, 0]);
    // a ratio inside the band is not touched: log-ratio 19 gives e^19
    const inside = tf.tensor2d([[19, -19]]);
    const kept = ppoPolicyLoss(inside, old, advantages, mask, 0.2, 0);
    expect(kept.loss.dataSync()[0] / ((Math.exp(19) + Math.exp(-19)) / 2)).toBeCloseTo(1, 5);
    tf.dispose([old, logProbs, advantages, mask, out.loss, out.clipFraction, out.approxKl, grad, inside, kept.loss, kept.clipFraction, kept.approxKl]);
  });

  it('rejects mismatched shapes', () => {
    const a = tf.zeros([2, 3]) as tf.Tensor2D;
    const b = tf.zeros([3, 2]) as tf.Tensor2D;
    expect(() => ppoPolicyLoss(a, a, a, b, 0.2)).toThrow();
    tf.dispose([a, b]);
  });
});

describe('clippedValueLoss', () => {
  it('takes the worse of the clipped and unclipped errors, halved, over the mask', () => {
    // clipRange 0.2; (v, old, R):
    //   (1.0, 0.5, 1.0): clipped v 0.7 -> max(0, 0.09)    = 0.09
    //   (0.6, 0.5, 1.0): inside        -> max(0.16, 0.16) = 0.16
    //   (0.0, 0.5, 0.0): clipped v 0.3 -> max(0, 0.09)    = 0.09
    //   (0.9, 0.5, 0.0): clipped v 0.7 -> max(0.81, 0.49) = 0.81
    //   masked (5, 0, 0)
    // 0.5 * (0.09 + 0.16 + 0.09 + 0.81)/4 = 0.5 * 0.2875 = 0.14375
    const values = tf.tensor2d([[1.0, 0.6, 0.0], [0.9, 5, 0]]);
    const old = tf.tensor2d([[0.5, 0.5, 0.5], [0.5, 0, 0]]);
    const returns = tf.tensor2d([[1.0, 1.0, 0.0], [0.0, 0, 0]]);
    const mask = tf.tensor2d([[1, 1, 1], [1, 0, 0]]);
    const loss = clippedValueLoss(values, old, returns, mask, 0.2);
    expect(loss.dataSync()[0]).toBeCloseTo(0.14375, 6);
    // without the clip it would be 0.5 * (0 + 0.16 + 0 + 0.81)/4 = 0.12125
    const wide = clippedValueLoss(values, old, returns, mask, 10);
    expect(wide.dataSync()[0]).toBeCloseTo(0.12125, 6);
    tf.dispose([values, old, returns, mask, loss, wide]);
  });
});

describe('tokenLogProbsAndEntropy', () => {
  // position 0: logits [0, 2 ln 2, 2 ln 3] at temperature 2 -> [0, ln 2, ln 3] -> p = [1/6, 1/3, 1/2]
  //   target 2: log p = ln(1/2) = -0.6931472
  //   entropy = (1/6) ln 6 + (1/3) ln 3 + (1/2) ln 2 = 0.2986266 + 0.3662041 + 0.3465736 = 1.0114043
  // position 1: logits [0, 0, 0] -> uniform; target 0: log p = -ln 3 = -1.0986123, entropy ln 3
  const logitValues = [[[0, 2 * Math.LN2, 2 * Math.log(3)], [0, 0, 0]]];

  it('matches a hand softmax', () => {
    const logits = tf.tensor3d(logitValues);
    const targets = tf.tensor2d([[2, 0]], undefined, 'int32');
    const { logProbs, entropy } = tokenLogProbsAndEntropy(logits, targets, 2);
    expect(logProbs.shape).toEqual([1, 2]);
    expectClose(logProbs.dataSync(), [-0.6931472, -1.0986123]);
    expectClose(entropy.dataSync(), [1.0114043, 1.0986123]);
    tf.dispose([logits, targets, logProbs, entropy]);
  });

  it('has the analytic gradient (onehot - p) / T and agrees with finite differences', () => {
    const logits = tf.tensor3d(logitValues);
    const targets = tf.tensor2d([[2, 0]], undefined, 'int32');
    // d logp / d logits = (onehot - p) / 2:
    //   position 0: ([0,0,1] - [1/6,1/3,1/2]) / 2 = [-1/12, -1/6, 1/4]
    //   position 1: ([1,0,0] - [1/3,1/3,1/3]) / 2 = [1/3, -1/6, -1/6]
    const sumLogProbs = (l: tf.Tensor) => tf.sum(tokenLogProbsAndEntropy(l as tf.Tensor3D, targets, 2).logProbs);
    const analytic = tf.grad(sumLogProbs)(logits);
    expectClose(analytic.dataSync(), [-1 / 12, -1 / 6, 1 / 4, 1 / 3, -1 / 6, -1 / 6]);

    // finite differences of a mix of both outputs, on seeded-looking fixed logits
    const mixValues = [[[0.3, -1.2, 2.0], [1.5, 0.1, -0.4]]];
    const mixLogits = tf.tensor3d(mixValues);
    const objective = (l: tf.Tensor) =>
      tf.tidy(() => {
        const { logProbs, entropy } = tokenLogProbsAndEntropy(l as tf.Tensor3D, targets, 0.7);
        return tf.add(tf.sum(logProbs), tf.mul(tf.sum(entropy), 0.5)) as tf.Scalar;
      });
    const gradient = tf.grad(objective)(mixLogits);
    const flat = mixValues.flat(2);
    const h = 1e-2;
    const numeric = flat.map((_, i) => {
      const evaluate = (delta: number) =>
        tf.tidy(() => objective(tf.tensor3d(flat.map((v, j) => (j === i ? v + delta : v)), [1, 2, 3])).dataSync()[0]);
      return (evaluate(h) - evaluate(-h)) / (2 * h);
    });
    expectClose(gradient.dataSync(), numeric, 3);
    tf.dispose([logits, targets, analytic, mixLogits, gradient]);
  });

  it('refuses a non-positive temperature and float targets', () => {
    const logits = tf.tensor3d(logitValues);
    const intTargets = tf.tensor2d([[2, 0]], undefined, 'int32');
    const floatTargets = tf.tensor2d([[2, 0]]);
    expect(() => tokenLogProbsAndEntropy(logits, intTargets, 0)).toThrow(RangeError);
    expect(() => tokenLogProbsAndEntropy(logits, floatTargets, 1)).toThrow(TypeError);
    tf.dispose([logits, intTargets, floatTargets]);
  });
});
