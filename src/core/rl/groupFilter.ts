/**
 * ZeroTIR's replay filter: a group (the samples for one prompt) whose mean reward is too high or too
 * low teaches little (its advantages are near zero) and is dropped from the update.
 */

export interface FilterBand {
  low: number;
  high: number;
}

/** The paper's band: keep groups with mean accuracy between 0.2 and 0.8. */
export const DEFAULT_FILTER_BAND: FilterBand = { low: 0.2, high: 0.8 };

// absorbs rounding in summed non-integer rewards; 0/1 rewards give exact means (k / G rounds like the literal)
const BOUNDARY_TOLERANCE = 1e-9;

/**
 * One boolean per group: true when low <= mean reward <= high. Both boundaries are inclusive, so
 * with the default band a group of 5 with 1 or 4 correct (mean 0.2 or 0.8) passes.
 */
export function groupsPassingFilter(rewards: number[], groupSize: number, band: FilterBand): boolean[] {
  if (!Number.isInteger(groupSize) || groupSize < 1 || rewards.length % groupSize !== 0) {
    throw new RangeError(`group size ${groupSize} does not divide ${rewards.length} rewards`);
  }
  if (!(band.low <= band.high)) throw new RangeError(`filter band low ${band.low} is above high ${band.high}`);
  const passing: boolean[] = [];
  for (let start = 0; start < rewards.length; start += groupSize) {
    let sum = 0;
    for (let i = start; i < start + groupSize; i++) sum += rewards[i];
    const mean = sum / groupSize;
    passing.push(mean >= band.low - BOUNDARY_TOLERANCE && mean <= band.high + BOUNDARY_TOLERANCE);
  }
  return passing;
}

/** Indices of the rollouts whose group passed, in order (rollout i belongs to group floor(i / groupSize)). */
export function keptRolloutIndices(passing: boolean[], groupSize: number): number[] {
  const kept: number[] = [];
  passing.forEach((passed, group) => {
    if (passed) for (let member = 0; member < groupSize; member++) kept.push(group * groupSize + member);
  });
  return kept;
}
