/**
 * The knob notes say what the lab does, checked against the lab itself: the table test
 * (exportBundle.test.ts) compares docs/scale-out.md with the same mapping, so a note that is wrong
 * about the lab would pass there. Here the KL note's clamps are the lab's klPenalty's.
 */
import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { KNOB_MAPPINGS } from '../src/core/export/engineKnobs';
import { KL_ESTIMATE_LIMIT, klPenalty, type KlEstimator } from '../src/core/rl/kl';
import { LOG_RATIO_LIMIT } from '../src/core/rl/ppoLoss';
import { useWasmCheckingTensors } from './modelHelpers';

useWasmCheckingTensors();

const penalty = (p: number, q: number, estimator: KlEstimator) =>
  tf.tidy(() => klPenalty(tf.tensor2d([[p]]), tf.tensor2d([[q]]), tf.tensor2d([[1]]), estimator).dataSync()[0]);

describe('the klEstimator note', () => {
  const note = KNOB_MAPPINGS.find((m) => m.knob === 'klEstimator')!.note;

  it("gives the lab's clamps, which the lab applies to both estimators", () => {
    expect(note).toContain(`The lab clamps each token's estimate to [-${KL_ESTIMATE_LIMIT}, ${KL_ESTIMATE_LIMIT}] (and k3's exponent to [-${LOG_RATIO_LIMIT}, ${LOG_RATIO_LIMIT}])`);
    expect(note).not.toMatch(/lab does not clamp/);
    // A token the policy has all but ruled out: k1 = p - q = 30, k3 = exp(30) - 31: both held at 10.
    expect(penalty(0, -30, 'k1')).toBe(KL_ESTIMATE_LIMIT);
    expect(penalty(-30, 0, 'k1')).toBe(-KL_ESTIMATE_LIMIT);
    expect(penalty(-30, 0, 'k3')).toBe(KL_ESTIMATE_LIMIT);
  });

  it("says which engine estimator clamps as the lab does (verl's low_var_kl and OpenRLHF's, not verl's kl)", () => {
    expect(note).toContain("verl's low_var_kl (k3) clamps the same; its kl (k1) is not clamped. OpenRLHF clamps every estimator to [-10, 10].");
  });
});
