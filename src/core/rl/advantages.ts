/**
 * Critic-free advantages from outcome rewards, and batch whitening.
 *
 * Rewards arrive grouped: `groupSize` consecutive entries are the samples for one prompt.
 */

/** GRPO's eps, added to a group's std before dividing by it. */
export const GRPO_EPS = 1e-6;

/** The mean reward of each group. */
export function groupMeans(rewards: number[], groupSize: number): number[] {
  if (!Number.isInteger(groupSize) || groupSize < 1 || rewards.length % groupSize !== 0) {
    throw new RangeError(`group size ${groupSize} does not divide ${rewards.length} rewards`);
  }
  const means: number[] = [];
  for (let start = 0; start < rewards.length; start += groupSize) {
    let sum = 0;
    for (let i = start; i < start + groupSize; i++) sum += rewards[i];
    means.push(sum / groupSize);
  }
  return means;
}

/** Reinforce++ style baseline: each reward minus the mean reward of its group. */
export function groupMeanBaseline(rewards: number[], groupSize: number): number[] {
  const means = groupMeans(rewards, groupSize);
  return rewards.map((r, i) => r - means[Math.floor(i / groupSize)]);
}

/** The population std (divisor G, so a group of one is defined) of each group's rewards. */
export function groupStds(rewards: number[], groupSize: number): number[] {
  return groupMeans(rewards, groupSize).map((mean, g) => {
    let squares = 0;
    for (let i = g * groupSize; i < (g + 1) * groupSize; i++) squares += (rewards[i] - mean) ** 2;
    return Math.sqrt(squares / groupSize);
  });
}

/**
 * GRPO: (r - mean) / (std + eps) within each group. A group whose rewards are all equal carries no
 * signal and gets 0 exactly, whatever eps is.
 */
export function grpoNormalise(rewards: number[], groupSize: number, eps = GRPO_EPS): number[] {
  const means = groupMeans(rewards, groupSize);
  const stds = groupStds(rewards, groupSize);
  return rewards.map((r, i) => {
    const g = Math.floor(i / groupSize);
    return stds[g] === 0 ? 0 : (r - means[g]) / (stds[g] + eps);
  });
}

/**
 * What `whiten` subtracts (the mean of the entries inside the mask) and divides by (sqrt(var + eps),
 * population variance). With no entry inside the mask every result is 0: shift 0, scale Infinity.
 */
export function whiteningMoments(values: ArrayLike<number>, mask?: ArrayLike<number>, eps = 1e-8): { shift: number; scale: number } {
  if (mask !== undefined && mask.length !== values.length) {
    throw new RangeError(`whiten: mask has ${mask.length} entries for ${values.length} values`);
  }
  const inside = (i: number): boolean => mask === undefined || mask[i] !== 0;
  let count = 0;
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    if (inside(i)) {
      count++;
      sum += values[i];
    }
  }
  if (count === 0) return { shift: 0, scale: Infinity };
  const mean = sum / count;
  let squares = 0;
  for (let i = 0; i < values.length; i++) if (inside(i)) squares += (values[i] - mean) ** 2;
  return { shift: mean, scale: Math.sqrt(squares / count + eps) };
}

/**
 * Shift and scale the entries where mask is non-zero (all entries without a mask) to mean 0 and
 * std 1 (population variance, (v - mean) / sqrt(var + eps)); entries outside the mask become 0.
 * With no entry inside the mask the result is all zeros. `moments`: whiteningMoments of the same
 * values and mask, when the caller already has them (it reports them too).
 */
export function whiten(values: ArrayLike<number>, mask?: ArrayLike<number>, { shift, scale } = whiteningMoments(values, mask)): Float32Array {
  const out = new Float32Array(values.length);
  const factor = 1 / scale;
  for (let i = 0; i < values.length; i++) if (mask === undefined || mask[i] !== 0) out[i] = (values[i] - shift) * factor;
  return out;
}
