import { describe, expect, it } from 'vitest';
import { gaeOverPolicyTokens } from '../src/core/rl/gae';
import { Random } from '../src/core/random';

// One response: policy, policy, env, env, policy; outcome reward 1 on the last token.
// Policy values 0.5, 0.6, 0.8; the env values (0.9, 0.1) must be ignored.
const mask = [1, 1, 0, 0, 1];
const values = [0.5, 0.6, 0.9, 0.1, 0.8];
const rewards = [0, 0, 0, 0, 1];

function gae(gamma: number, lambda: number, v: number[] = values) {
  const { advantages, returns } = gaeOverPolicyTokens({ values: v, rewards, policyMask: mask, gamma, lambda });
  return { advantages: Array.from(advantages), returns: Array.from(returns) };
}

function expectClose(actual: number[], expected: number[]): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((a, i) => expect(a).toBeCloseTo(expected[i], 6));
}

describe('gaeOverPolicyTokens across an environment span', () => {
  it('gamma 1, lambda 1: advantage = R - V, return = R at every policy token, 0 at env tokens', () => {
    // 1 - 0.5, 1 - 0.6, -, -, 1 - 0.8
    const { advantages, returns } = gae(1, 1);
    expectClose(advantages, [0.5, 0.4, 0, 0, 0.2]);
    expectClose(returns, [1, 1, 0, 0, 1]);
  });

  it('gamma 0.9, lambda 0.95 by hand', () => {
    // the env span costs no discount step: the next value after token 1 is V(token 4) = 0.8
    // token 4: delta = 1 + 0.9*0 - 0.8 = 0.2;                  A = 0.2
    // token 1: delta = 0 + 0.9*0.8 - 0.6 = 0.12;               A = 0.12 + 0.855*0.2 = 0.291
    // token 0: delta = 0 + 0.9*0.6 - 0.5 = 0.04;               A = 0.04 + 0.855*0.291 = 0.288805
    // returns = A + V: 0.788805, 0.891, 1.0
    const { advantages, returns } = gae(0.9, 0.95);
    expectClose(advantages, [0.288805, 0.291, 0, 0, 0.2]);
    expectClose(returns, [0.788805, 0.891, 0, 0, 1.0]);
  });

  it('gamma 0.9, lambda 1: returns are the reward discounted once per policy step (0.81, 0.9, 1)', () => {
    // token 4: A = 0.2; token 1: A = 0.12 + 0.9*0.2 = 0.3; token 0: A = 0.04 + 0.9*0.3 = 0.31
    // (counting the two env tokens as steps would give 0.9^4 = 0.6561 at token 0)
    const { advantages, returns } = gae(0.9, 1);
    expectClose(advantages, [0.31, 0.3, 0, 0, 0.2]);
    expectClose(returns, [0.81, 0.9, 0, 0, 1]);
  });

  it('gamma 1, lambda 0.95 by hand', () => {
    // token 4: delta = 1 - 0.8 = 0.2;    A = 0.2
    // token 1: delta = 0.8 - 0.6 = 0.2;  A = 0.2 + 0.95*0.2 = 0.39
    // token 0: delta = 0.6 - 0.5 = 0.1;  A = 0.1 + 0.95*0.39 = 0.4705
    expectClose(gae(1, 0.95).advantages, [0.4705, 0.39, 0, 0, 0.2]);
  });

  it('ignores the critic values at environment tokens', () => {
    expect(gae(0.9, 0.95, [0.5, 0.6, -7, 42, 0.8])).toEqual(gae(0.9, 0.95));
  });

  it('credits a reward landing on an environment token to the policy token before it', () => {
    // policy, env with reward 1: the policy token gets delta = 1 - 0.25 = 0.75
    const out = gaeOverPolicyTokens({ values: [0.25, 0.5], rewards: [0, 1], policyMask: [1, 0], gamma: 0.9, lambda: 0.95 });
    expect(Array.from(out.advantages)).toEqual([0.75, 0]);
    expect(Array.from(out.returns)).toEqual([1, 0]);
    expect(() =>
      gaeOverPolicyTokens({ values: [0, 0], rewards: [1, 0], policyMask: [0, 1], gamma: 1, lambda: 1 }),
    ).toThrow(/before any policy token/);
  });

  it('rejects mismatched lengths', () => {
    expect(() => gaeOverPolicyTokens({ values: [0, 0], rewards: [0], policyMask: [1, 1], gamma: 1, lambda: 1 })).toThrow(RangeError);
  });

  it('with gamma = lambda = 1 gives R - V at every policy token of random masked responses', () => {
    const random = new Random(7);
    for (let trial = 0; trial < 20; trial++) {
      const length = random.int(1, 40);
      const policyMask = Array.from({ length }, (_, i) => (i === length - 1 || random.next() < 0.6 ? 1 : 0));
      const vs = Array.from({ length }, () => random.next());
      const reward = random.int(0, 1);
      const rs = Array.from({ length }, (_, i) => (i === length - 1 ? reward : 0));
      const { advantages, returns } = gaeOverPolicyTokens({ values: vs, rewards: rs, policyMask, gamma: 1, lambda: 1 });
      for (let i = 0; i < length; i++) {
        expect(advantages[i]).toBeCloseTo(policyMask[i] ? reward - vs[i] : 0, 5);
        expect(returns[i]).toBeCloseTo(policyMask[i] ? reward : 0, 5);
      }
    }
  });
});
