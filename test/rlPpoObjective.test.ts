import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { configErrors, PRESETS, type Algorithm } from '../src/core/experiment';
import { ppoObjective, type ObjectiveKnobs } from '../src/core/rl/ppoObjective';
import { useWasmCheckingTensors } from './modelHelpers';

useWasmCheckingTensors();

// One row of three response positions; the third is an environment token (mask 0) with wild numbers.
//   policy log-probs p = [-1, -2, -9], old = p (ratio 1), advantages [1, -0.5, 7]:
//     policy loss = -(1 - 0.5)/2 = -0.25
//   values [0.5, 0.2, 3], old values [0.4, 0.2, 0], returns [1, 0, 0], value clip 0.2 (both inside):
//     value loss = 0.5 * ((0.5 - 1)^2 + (0.2 - 0)^2)/2 = 0.5 * 0.29/2 = 0.0725
//   reference q = [-1.5, -1, 0], k3: (exp(-0.5) + 0.5 - 1 + exp(1) - 1 - 1)/2 = 0.4124062
//   entropy [1, 2, 100]: mean over the mask 1.5
const p = [[-1, -2, -9]];
const knobs: ObjectiveKnobs = { ...PRESETS.classroom, algorithm: 'ppo', clipEps: 0.2, valueClip: 0.2, valueCoef: 0.5, klCoef: 0.1, klEstimator: 'k3' };

function withTensors<T>(f: (outputs: { logProbs: tf.Tensor2D; entropy: tf.Tensor2D; values: tf.Tensor2D }, targets: Parameters<typeof ppoObjective>[1]) => T): T {
  const logProbs = tf.tensor2d(p);
  const entropy = tf.tensor2d([[1, 2, 100]]);
  const values = tf.tensor2d([[0.5, 0.2, 3]]);
  const targets = {
    mask: tf.tensor2d([[1, 1, 0]]),
    oldLogProbs: tf.tensor2d(p),
    oldValues: tf.tensor2d([[0.4, 0.2, 0]]),
    advantages: tf.tensor2d([[1, -0.5, 7]]),
    returns: tf.tensor2d([[1, 0, 0]]),
    refLogProbs: tf.tensor2d([[-1.5, -1, 0]]),
  };
  try {
    return f({ logProbs, entropy, values }, targets);
  } finally {
    tf.dispose([logProbs, entropy, values, ...Object.values(targets)]);
  }
}

function figures(k: ObjectiveKnobs) {
  return withTensors((outputs, targets) =>
    tf.tidy(() => {
      const terms = ppoObjective(outputs, targets, k);
      return Object.fromEntries(Object.entries(terms).map(([name, t]) => [name, t.dataSync()[0]]));
    }),
  );
}

describe('ppoObjective', () => {
  it('is policy loss + valueCoef * value loss + klCoef * KL, by hand (PPO, k3)', () => {
    const out = figures(knobs);
    // -0.25 + 0.5 * 0.0725 + 0.1 * 0.4124062 = -0.25 + 0.03625 + 0.04124062
    expect(out.loss).toBeCloseTo(-0.17250938, 6);
    expect(out.valueLoss).toBeCloseTo(0.0725, 6);
    expect(out.entropy).toBeCloseTo(1.5, 6);
    expect(out.clipFraction).toBe(0);
    expect(out.approxKl).toBeCloseTo(0, 7);
    // another value weight and KL weight, so neither can be a constant: -0.25 + 2 * 0.0725 + 0.5 * 0.4124062
    expect(figures({ ...knobs, valueCoef: 2, klCoef: 0.5 }).loss).toBeCloseTo(0.1012031, 6);
  });

  it('drops the value term without a critic and the KL term at klCoef 0', () => {
    for (const algorithm of ['reinforce++', 'grpo'] as Algorithm[]) {
      const out = figures({ ...knobs, algorithm });
      // -0.25 + 0.1 * 0.4124062
      expect(out.loss).toBeCloseTo(-0.20875938, 6);
      expect(out.valueLoss).toBe(0);
    }
    expect(figures({ ...knobs, klCoef: 0 }).loss).toBeCloseTo(-0.25 + 0.03625, 6);
  });

  it('pulls the log-probs towards the advantage and the reference, the values towards the returns', () => {
    withTensors((outputs, targets) => {
      const [dLogProbs, dValues] = tf.grads((lp: tf.Tensor, v: tf.Tensor) =>
        ppoObjective({ logProbs: lp as tf.Tensor2D, entropy: outputs.entropy, values: v as tf.Tensor2D }, targets, knobs).loss,
      )([outputs.logProbs, outputs.values]);
      // d/dp: -A/2 + 0.1 * (1 - exp(q - p))/2 = [-0.5 + 0.01967347, 0.25 - 0.08591409, 0]
      const g = dLogProbs.dataSync();
      [-0.48032653, 0.16408591, 0].forEach((x, i) => expect(g[i]).toBeCloseTo(x, 6));
      // d/dv: valueCoef * (v - R)/2 = 0.5 * [-0.25, 0.1, 0]
      const h = dValues.dataSync();
      [-0.125, 0.05, 0].forEach((x, i) => expect(h[i]).toBeCloseTo(x, 6));
      tf.dispose([dLogProbs, dValues]);
    });
  });

  it("takes dual clip as a knob: verl's 3 in every preset, 0 for off, nothing in (0, 1]", () => {
    expect(Object.values(PRESETS).every((p) => p.dualClip === 3)).toBe(true);
    const errors = (dualClip: number) => configErrors({ ...PRESETS.classroom, dualClip }).dualClip;
    expect([errors(0), errors(3), errors(1.5)]).toEqual([undefined, undefined, undefined]);
    expect(errors(1)).toBe('dualClip must be 0 (off) or above 1');
    expect(errors(0.5)).toBe('dualClip must be 0 (off) or above 1');
    expect(errors(-1)).toBe('dualClip must be between 0 and 100');
  });
});
