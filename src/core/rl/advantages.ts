/**
 * Critic-free advantages from outcome rewards, and batch whitening.
 *
 * Rewards arrive grouped: `groupSize` consecutive entries are the samples for one prompt.
 */

function groupMeans(rewards: number[], groupSize: number): number[] {
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

/**
 * GRPO: (r - mean) / (std + eps) within each group, with the population std (divisor G, so a group
 * of one is defined). A group whose rewards are all equal carries no signal and gets 0 exactly,
 * whatever eps is.
 */
export function grpoNormalise(rewards: number[], groupSize: number, eps = 1e-6): number[] {
  const means = groupMeans(rewards, groupSize);
  const stds = means.map((mean, g) => {
    let squares = 0;
    for (let i = g * groupSize; i < (g + 1) * groupSize; i++) squares += (rewards[i] - mean) ** 2;
    return Math.sqrt(squares / groupSize);
  });
  return rewards.map((r, i) => {
    const g = Math.floor(i / groupSize);
    return stds[g] === 0 ? 0 : (r - means[g]) / (stds[g] + eps);
  });
}

/**
 * Shift and scale the entries where mask is non-zero (all entries without a mask) to mean 0 and
 * std 1 (population variance, (v - mean) / sqrt(var + eps)); entries outside the mask become 0.
 * With no entry inside the mask the result is all zeros.
 */
export function whiten(values: ArrayLike<number>, mask?: ArrayLike<number>, eps = 1e-8): Float32Array {
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
  const out = new Float32Array(values.length);
  if (count === 0) return out;
  const mean = sum / count;
  let squares = 0;
  for (let i = 0; i < values.length; i++) if (inside(i)) squares += (values[i] - mean) ** 2;
  const scale = 1 / Math.sqrt(squares / count + eps);
  for (let i = 0; i < values.length; i++) if (inside(i)) out[i] = (values[i] - mean) * scale;
  return out;
}
