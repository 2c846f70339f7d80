import * as tf from '@tensorflow/tfjs-core';
// tfjs-core registers no gradients by itself (the tfjs union package does); the engine must too
import '@tensorflow/tfjs-core/dist/register_all_gradients';
import { describe, expect, it } from 'vitest';
import { KL_ESTIMATE_LIMIT, klPenalty, meanSampledKl, type KlEstimator } from '../src/core/rl/kl';
import { Random } from '../src/core/random';
import { useWasmCheckingTensors } from './modelHelpers';

useWasmCheckingTensors();

function penalty(p: number[][], q: number[][], m: number[][], estimator: KlEstimator): number {
  return tf.tidy(() => klPenalty(tf.tensor2d(p), tf.tensor2d(q), tf.tensor2d(m), estimator).dataSync()[0]);
}

// policy log-probs p = -1, -2 (and a masked -9); reference q = -1.5, -1 (masked 0)
const p = [[-1, -2, -9]];
const q = [[-1.5, -1, 0]];
const mask = [[1, 1, 0]];

describe('klPenalty', () => {
  it('k1 is the masked mean of p - q', () => {
    // (0.5 + -1)/2 = -0.25: k1 can be negative on a sample
    expect(penalty(p, q, mask, 'k1')).toBeCloseTo(-0.25, 6);
  });

  it('k3 is the masked mean of exp(q - p) - (q - p) - 1', () => {
    // q - p = -0.5: exp(-0.5) + 0.5 - 1 = 0.1065307
    // q - p =  1.0: exp(1) - 1 - 1     = 0.7182818
    // mean = 0.4124062
    expect(penalty(p, q, mask, 'k3')).toBeCloseTo(0.4124062, 6);
  });

  it('is 0 for both estimators when the policy equals the reference', () => {
    expect(penalty(p, p, mask, 'k1')).toBe(0);
    expect(penalty(p, p, mask, 'k3')).toBe(0);
  });

  it('k3 is never negative on random log-probs', () => {
    const random = new Random(3);
    const row = () => Array.from({ length: 50 }, () => -5 * random.next());
    for (let trial = 0; trial < 5; trial++) {
      expect(penalty([row()], [row()], [Array(50).fill(1)], 'k3')).toBeGreaterThanOrEqual(0);
    }
  });

  it('k3 has gradient (1 - exp(q - p)) / n in the policy log-probs', () => {
    // n = 2 masked tokens: (1 - exp(-0.5))/2 = 0.1967347, (1 - e)/2 = -0.8591409, masked 0
    const logProbs = tf.tensor2d(p);
    const ref = tf.tensor2d(q);
    const m = tf.tensor2d(mask);
    const grad = tf.grad((lp: tf.Tensor) => klPenalty(lp as tf.Tensor2D, ref, m, 'k3'))(logProbs);
    const values = grad.dataSync();
    expect(values[0]).toBeCloseTo(0.1967347, 6);
    expect(values[1]).toBeCloseTo(-0.8591409, 6);
    expect(Math.abs(values[2])).toBe(0);
    tf.dispose([logProbs, ref, m, grad]);
  });

  it("clamps each token's estimate to [-10, 10] and k3's exponent to [-20, 20], with no gradient past the bound", () => {
    // one token at p - q = 15 and one inside at p - q = 0.5 (p = -1, q = -1.5):
    //   k1: clamp(15) = 10 and 0.5 -> 5.25 (unclamped 7.75)
    //   k3: q - p = -15: e^-15 + 15 - 1 = 14.0000003 -> 10; q - p = -0.5: 0.1065307 -> 5.0532653
    //   q - p = +30 alone: exp(clamp(30, 20)) - 20 - 1 -> clamped to 10 (finite either way; the exponent clamp keeps exp in float32)
    expect(KL_ESTIMATE_LIMIT).toBe(10);
    const wide = [[14, -1]];
    const ref = [[-1, -1.5]];
    const both = [[1, 1]];
    expect(penalty(wide, ref, both, 'k1')).toBeCloseTo(5.25, 5);
    expect(penalty(wide, ref, both, 'k3')).toBeCloseTo(5.0532653, 5);
    expect(penalty([[-130]], [[-30]], [[1]], 'k3')).toBe(10);
    expect(penalty([[-130]], [[-30]], [[1]], 'k1')).toBe(-10);
    const logProbs = tf.tensor2d(wide);
    const refTensor = tf.tensor2d(ref);
    const m = tf.tensor2d(both);
    for (const estimator of ['k1', 'k3'] as KlEstimator[]) {
      const grad = tf.grad((lp: tf.Tensor) => klPenalty(lp as tf.Tensor2D, refTensor, m, estimator))(logProbs);
      const values = grad.dataSync();
      expect(Math.abs(values[0])).toBe(0);
      // inside the band: k1 1/2, k3 (1 - exp(-0.5))/2
      expect(values[1]).toBeCloseTo(estimator === 'k1' ? 0.5 : 0.1967347, 6);
      grad.dispose();
    }
    tf.dispose([logProbs, refTensor, m]);
  });
});

describe('meanSampledKl (the logged KL)', () => {
  it('is the mean over policy tokens of log pi_old - log pi_ref: positive where the policy made its own tokens likelier', () => {
    // policy tokens: (-1 vs -2) +1, (-0.5 vs -1) +0.5, (-3 vs -2.5) -0.5; environment tokens ignored whatever their numbers
    const sequences = [
      { policyMask: [1, 0, 1], oldLogProbs: [-1, 0, -0.5], refLogProbs: [-2, -9, -1] },
      { policyMask: [0, 1], oldLogProbs: [0, -3], refLogProbs: [-7, -2.5] },
    ];
    expect(meanSampledKl(sequences)).toBeCloseTo(1 / 3, 12);
    expect(meanSampledKl([{ policyMask: [0], oldLogProbs: [0], refLogProbs: [5] }])).toBe(0);
    expect(() => meanSampledKl([{ policyMask: [1], oldLogProbs: [0] }])).toThrow();
  });
});
