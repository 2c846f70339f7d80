/**
 * Per-token advantages (and value targets) for one step's kept rollouts, by the algorithm's way
 * (ALGORITHMS[algorithm].advantage, algorithms.ts):
 * - gae (ppo): GAE over the policy tokens with the value head (outcome reward at the last policy
 *   token), whitened over the batch;
 * - groupMeanThenWhiten (reinforce++): reward minus the group mean, on every policy token,
 *   whitened over the batch (no critic);
 * - groupNormalised (grpo): reward normalised within its group, on every policy token.
 * Rollouts come group by group (groupSize consecutive samples of one prompt). Each rollout's
 * advantage is also given in parts, so the lab's slow motion can show a student how to recompute it.
 */
import type { Algorithm } from '../experiment';
import { ALGORITHMS } from './algorithms';
import { gaeOverPolicyTokens } from './gae';
import { GRPO_EPS, groupMeanBaseline, groupMeans, groupStds, grpoNormalise, whiten, whiteningMoments } from './advantages';
import type { Rollout } from '../rollout/rollout';

/** A rollout's advantage in parts: (reward - baseline - shift) / scale is the mean of its policy tokens' advantages. */
export interface AdvantageParts {
  /**
   * What the reward is measured against: the group's mean reward, or for ppo the reward minus the
   * mean GAE advantage over its policy tokens (with gamma = lambda = 1, the critic's mean value over them).
   */
  baseline: number;
  /** Subtracted by batch whitening (its mean); 0 for grpo. */
  shift: number;
  /** Divided by: the batch's std for whitening, the group's std + eps for grpo. */
  scale: number;
}

export interface Credit {
  advantages: Float32Array[];
  returns: Float32Array[];
  parts: AdvantageParts[];
}

export function assignCredit(
  rollouts: Rollout[],
  rewards: number[],
  options: { algorithm: Algorithm; groupSize: number; gamma: number; lambda: number },
): Credit {
  const masks = rollouts.map((r) => r.episode.policyMask);
  const { advantage } = ALGORITHMS[options.algorithm];
  if (advantage === 'gae') {
    const perRollout = rollouts.map((r, i) => {
      const tokenRewards = new Float32Array(masks[i].length);
      const last = masks[i].lastIndexOf(1);
      if (last >= 0) tokenRewards[last] = rewards[i];
      return gaeOverPolicyTokens({ values: r.values, rewards: tokenRewards, policyMask: masks[i], gamma: options.gamma, lambda: options.lambda });
    });
    const raw = perRollout.map((g) => g.advantages);
    const { advantages, shift, scale } = whitenAcross(raw, masks);
    return {
      advantages,
      returns: perRollout.map((g) => g.returns),
      parts: raw.map((a, i) => ({ baseline: rewards[i] - meanOverPolicyTokens(a, masks[i]), shift, scale })),
    };
  }
  const means = groupMeans(rewards, options.groupSize);
  const baselines = rewards.map((_, i) => means[Math.floor(i / options.groupSize)]);
  const returns = masks.map((mask) => new Float32Array(mask.length));
  if (advantage === 'groupNormalised') {
    const stds = groupStds(rewards, options.groupSize);
    const advantages = grpoNormalise(rewards, options.groupSize);
    return {
      advantages: masks.map((mask, i) => Float32Array.from(mask, (m) => m * advantages[i])),
      returns,
      parts: baselines.map((baseline, i) => ({ baseline, shift: 0, scale: stds[Math.floor(i / options.groupSize)] + GRPO_EPS })),
    };
  }
  const centred = groupMeanBaseline(rewards, options.groupSize);
  const { advantages, shift, scale } = whitenAcross(
    masks.map((mask, i) => Float32Array.from(mask, (m) => m * centred[i])),
    masks,
  );
  return {
    advantages,
    returns,
    parts: baselines.map((baseline) => ({ baseline, shift, scale })),
  };
}

/** The mean of a rollout's values over its policy tokens (0 when it has none). */
export function meanOverPolicyTokens(values: ArrayLike<number>, policyMask: ArrayLike<number>): number {
  let sum = 0;
  let count = 0;
  for (let t = 0; t < policyMask.length; t++) {
    if (policyMask[t] !== 0) {
      sum += values[t];
      count++;
    }
  }
  return count === 0 ? 0 : sum / count;
}

/** Whitens the policy-token entries of all rollouts together (batch whitening), with what it subtracted and divided by. */
function whitenAcross(perRollout: Float32Array[], masks: number[][]): { advantages: Float32Array[]; shift: number; scale: number } {
  const values = concat(perRollout);
  const mask = concat(masks.map((m) => Float32Array.from(m)));
  const moments = whiteningMoments(values, mask);
  const flat = whiten(values, mask, moments);
  let offset = 0;
  const advantages = perRollout.map((a) => {
    const part = flat.slice(offset, offset + a.length);
    offset += a.length;
    return part;
  });
  return { advantages, ...moments };
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
