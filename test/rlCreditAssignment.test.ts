import { describe, expect, it } from 'vitest';
import type { Algorithm } from '../src/core/experiment';
import { assignCredit, meanOverPolicyTokens } from '../src/core/rl/creditAssignment';
import type { Rollout } from '../src/core/rollout/rollout';

// Four rollouts in two groups of two; the first calls a tool (two environment tokens after its
// second policy token) and is cut off inside a second tool output (an environment token last).
const masks = [
  [1, 1, 0, 0, 1, 0],
  [1, 1, 1],
  [1, 1],
  [1, 0, 1],
];
const rollouts = masks.map((policyMask) => ({ episode: { policyMask }, values: policyMask.map(() => 0), logProbs: [] }) as unknown as Rollout);
// group 0 has one right answer of two; group 1 none
const rewards = [1, 0, 0, 0];

function credit(algorithm: Algorithm, gamma = 0.9) {
  return assignCredit(rollouts, rewards, { algorithm, groupSize: 2, gamma, lambda: 1 });
}

function expectRows(actual: ArrayLike<number>[], expected: number[][], digits = 5): void {
  expect(actual.map((row) => row.length)).toEqual(expected.map((row) => row.length));
  expected.forEach((row, r) => row.forEach((x, i) => expect(actual[r][i]).toBeCloseTo(x, digits)));
}

describe('assignCredit', () => {
  it('ppo: the outcome reward lands on the last policy token, and credit crosses the tool output undiscounted', () => {
    // values 0, gamma 0.9: the return at a policy token is 0.9^(policy tokens after it) * reward.
    const { returns } = credit('ppo');
    expectRows(returns, [[0.81, 0.9, 0, 0, 1, 0], [0, 0, 0], [0, 0], [0, 0, 0]]);
  });

  it("ppo: the advantages are whitened over the batch's policy tokens", () => {
    // Raw advantages (values 0) are the returns: 0.81, 0.9, 1 and seven zeros over 10 policy tokens:
    // mean 0.271, population variance 2.4661/10 - 0.271^2 = 0.173169.
    const scale = 1 / Math.sqrt(0.173169 + 1e-8);
    const w = (x: number) => (x - 0.271) * scale;
    const { advantages } = credit('ppo');
    expectRows(advantages, [[w(0.81), w(0.9), 0, 0, w(1), 0], [w(0), w(0), w(0)], [w(0), w(0)], [w(0), 0, w(0)]]);
  });

  it('reinforce++: reward minus the group mean on every policy token, whitened over the batch; no value targets', () => {
    // group means 0.5 and 0: +0.5 on 3 tokens, -0.5 on 3, 0 on 4 -> mean 0, variance 0.15
    const a = 0.5 / Math.sqrt(0.15 + 1e-8);
    const { advantages, returns } = credit('reinforce++');
    expectRows(advantages, [[a, a, 0, 0, a, 0], [-a, -a, -a], [0, 0], [0, 0, 0]]);
    expectRows(returns, masks.map((m) => m.map(() => 0)));
  });

  it('grpo: reward normalised within its group, not whitened', () => {
    // group 0: (1 - 0.5)/(0.5 + 1e-6); group 1 has no spread: 0. Whitening would give 1.29 instead.
    const a = 0.5 / (0.5 + 1e-6);
    const { advantages } = credit('grpo');
    expectRows(advantages, [[a, a, 0, 0, a, 0], [-a, -a, -a], [0, 0], [0, 0, 0]]);
  });

  describe("each rollout's advantage in parts (what slow motion shows a student)", () => {
    // The critic's values per token, so ppo's baseline is not just 0; values at environment tokens are ignored.
    const values = [
      [0.2, 0.4, 9, 9, 0.6, 9],
      [0.1, 0.1, 0.4],
      [0.5, 0.3],
      [0.2, 9, 0.8],
    ];
    const valued = rollouts.map((r, i) => ({ ...r, values: values[i] }) as Rollout);
    const ALGORITHMS: Algorithm[] = ['ppo', 'reinforce++', 'grpo'];

    it.each(ALGORITHMS)('%s: (reward - baseline - shift) / scale is the mean advantage over the policy tokens, within 1e-6', (algorithm) => {
      const { advantages, parts } = assignCredit(valued, rewards, { algorithm, groupSize: 2, gamma: 1, lambda: 1 });
      expect(parts).toHaveLength(rollouts.length);
      parts.forEach(({ baseline, shift, scale }, i) => {
        const recomputed = (rewards[i] - baseline - shift) / scale;
        expect(Math.abs(recomputed - meanOverPolicyTokens(advantages[i], masks[i]))).toBeLessThan(1e-6);
      });
      // Not trivially 0 = 0: the first answer is pushed up.
      expect(meanOverPolicyTokens(advantages[0], masks[0])).toBeGreaterThan(0.5);
    });

    it("ppo with gamma = lambda = 1: the baseline is the critic's mean value over the answer's policy tokens; the batch's mean and std normalise", () => {
      const { parts } = assignCredit(valued, rewards, { algorithm: 'ppo', groupSize: 2, gamma: 1, lambda: 1 });
      expect(parts.map((p) => p.baseline)).toEqual([0.4, 0.2, 0.4, 0.5].map((b) => expect.closeTo(b, 6)));
      // Raw advantages reward - value: 0.8 0.6 0.4 | -0.1 -0.1 -0.4 | -0.5 -0.3 | -0.2 -0.8 over 10 policy tokens.
      const raw = [0.8, 0.6, 0.4, -0.1, -0.1, -0.4, -0.5, -0.3, -0.2, -0.8];
      const mean = raw.reduce((a, b) => a + b, 0) / raw.length;
      const std = Math.sqrt(raw.reduce((a, x) => a + (x - mean) ** 2, 0) / raw.length + 1e-8);
      for (const p of parts) {
        expect(p.shift).toBeCloseTo(mean, 6);
        expect(p.scale).toBeCloseTo(std, 6);
      }
    });

    it('reinforce++: the baseline is the group mean, then the batch whitening of (reward - group mean) over the policy tokens', () => {
      const { parts } = assignCredit(valued, rewards, { algorithm: 'reinforce++', groupSize: 2, gamma: 1, lambda: 1 });
      // +0.5 on 3 tokens, -0.5 on 3, 0 on 4: mean 0, variance 0.15 (as above).
      expect(parts).toEqual([0.5, 0.5, 0, 0].map((baseline) => ({ baseline, shift: 0, scale: expect.closeTo(Math.sqrt(0.15 + 1e-8), 9) })));
    });

    it("grpo: the baseline is the group mean, the scale the group's std + 1e-6, no shift", () => {
      const { parts } = assignCredit(valued, rewards, { algorithm: 'grpo', groupSize: 2, gamma: 1, lambda: 1 });
      expect(parts).toEqual([
        { baseline: 0.5, shift: 0, scale: 0.5 + 1e-6 },
        { baseline: 0.5, shift: 0, scale: 0.5 + 1e-6 },
        { baseline: 0, shift: 0, scale: 1e-6 },
        { baseline: 0, shift: 0, scale: 1e-6 },
      ]);
    });
  });
});
