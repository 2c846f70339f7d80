import { describe, expect, it } from 'vitest';
import type { Algorithm } from '../src/core/experiment';
import { assignCredit } from '../src/core/rl/creditAssignment';
import type { Rollout } from '../src/core/env/rollout';

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
});
