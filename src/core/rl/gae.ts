/**
 * Generalised advantage estimation over the policy tokens of one response.
 *
 * Environment tokens (the sandbox's output, mask 0) are not actions, so they are skipped entirely:
 * the value that follows the last policy token before a tool output is the value at the first policy
 * token after it, and the span costs no discount step. Credit for the final answer thus flows back
 * across the tool call to the code that made it. verl does the same (its GAE carries the running
 * advantage across masked positions); ZeroTIR's main package instead resets the advantage at tool
 * tokens, so there the answer's credit stops at the tool output.
 */

export interface GaeInput {
  /** Critic value per response token (values at environment tokens are ignored). */
  values: ArrayLike<number>;
  /** Reward per response token; with outcome reward only the last entry is non-zero. */
  rewards: ArrayLike<number>;
  /** 1 for a policy token (sampled by the model), 0 for an environment token. */
  policyMask: ArrayLike<number>;
  gamma: number;
  lambda: number;
}

/**
 * Advantages and returns (advantage + value) per token; both are 0 at environment tokens. The value
 * after the last policy token is 0 (the episode ends). A reward that lands on an environment token
 * (a response cut off inside a tool output) belongs to the action that led to it, so it is added to
 * the nearest policy token before it; a non-zero reward before any policy token is an error.
 */
export function gaeOverPolicyTokens(args: GaeInput): { advantages: Float32Array; returns: Float32Array } {
  const { values, rewards, policyMask, gamma, lambda } = args;
  const length = values.length;
  if (rewards.length !== length || policyMask.length !== length) {
    throw new RangeError(
      `gaeOverPolicyTokens: values (${length}), rewards (${rewards.length}) and policyMask (${policyMask.length}) must have one entry per token`,
    );
  }

  const policyIndices: number[] = [];
  const policyRewards: number[] = [];
  for (let i = 0; i < length; i++) {
    if (policyMask[i] !== 0) {
      policyIndices.push(i);
      policyRewards.push(rewards[i]);
    } else if (rewards[i] !== 0) {
      if (policyIndices.length === 0) {
        throw new RangeError(`gaeOverPolicyTokens: reward ${rewards[i]} at token ${i} comes before any policy token`);
      }
      policyRewards[policyRewards.length - 1] += rewards[i];
    }
  }

  const advantages = new Float32Array(length);
  const returns = new Float32Array(length);
  let nextValue = 0;
  let nextAdvantage = 0;
  for (let k = policyIndices.length - 1; k >= 0; k--) {
    const i = policyIndices[k];
    const delta = policyRewards[k] + gamma * nextValue - values[i];
    nextAdvantage = delta + gamma * lambda * nextAdvantage;
    nextValue = values[i];
    advantages[i] = nextAdvantage;
    returns[i] = nextAdvantage + values[i];
  }
  return { advantages, returns };
}
