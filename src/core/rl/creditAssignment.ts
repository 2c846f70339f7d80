/**
 * Per-token advantages (and value targets) for one step's kept rollouts, by algorithm:
 * - ppo: GAE over the policy tokens with the value head (outcome reward at the last policy
 *   token), whitened over the batch;
 * - reinforce++: reward minus the group mean, on every policy token, whitened over the batch
 *   (no critic);
 * - grpo: reward normalised within its group, on every policy token.
 * Rollouts come group by group (groupSize consecutive samples of one prompt).
 */
import type { Algorithm } from '../experiment';
import { gaeOverPolicyTokens } from './gae';
import { groupMeanBaseline, grpoNormalise, whiten } from './advantages';
import type { Rollout } from '../env/rollout';

export interface Credit {
  advantages: Float32Array[];
  returns: Float32Array[];
}

export function assignCredit(
  rollouts: Rollout[],
  rewards: number[],
  options: { algorithm: Algorithm; groupSize: number; gamma: number; lambda: number },
): Credit {
  const masks = rollouts.map((r) => r.episode.policyMask);
  if (options.algorithm === 'ppo') {
    const perRollout = rollouts.map((r, i) => {
      const tokenRewards = new Float32Array(masks[i].length);
      const last = masks[i].lastIndexOf(1);
      if (last >= 0) tokenRewards[last] = rewards[i];
      return gaeOverPolicyTokens({ values: r.values, rewards: tokenRewards, policyMask: masks[i], gamma: options.gamma, lambda: options.lambda });
    });
    return {
      advantages: whitenAcross(perRollout.map((g) => g.advantages), masks),
      returns: perRollout.map((g) => g.returns),
    };
  }
  const sequenceAdvantages =
    options.algorithm === 'grpo' ? grpoNormalise(rewards, options.groupSize) : groupMeanBaseline(rewards, options.groupSize);
  const broadcast = masks.map((mask, i) => Float32Array.from(mask, (m) => m * sequenceAdvantages[i]));
  return {
    advantages: options.algorithm === 'grpo' ? broadcast : whitenAcross(broadcast, masks),
    returns: masks.map((mask) => new Float32Array(mask.length)),
  };
}

/** Whitens the policy-token entries of all rollouts together (batch whitening). */
function whitenAcross(perRollout: Float32Array[], masks: number[][]): Float32Array[] {
  const flat = whiten(concat(perRollout), concat(masks.map((m) => Float32Array.from(m))));
  let offset = 0;
  return perRollout.map((a) => {
    const part = flat.slice(offset, offset + a.length);
    offset += a.length;
    return part;
  });
}

function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
