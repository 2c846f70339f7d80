import { describe, expect, it } from 'vitest';
import { DEFAULT_FILTER_BAND, groupsPassingFilter, keptRolloutIndices } from '../src/core/rl/groupFilter';

describe('groupsPassingFilter', () => {
  it('keeps groups whose mean is inside the band, edges included', () => {
    // groups of 5 with 0, 1, 3, 4, 5 correct: means 0, 0.2, 0.6, 0.8, 1.0
    const rewards = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1];
    expect(groupsPassingFilter(rewards, 5, DEFAULT_FILTER_BAND)).toEqual([false, true, true, true, false]);
    // a narrower band drops the 0.2 and 0.8 groups
    expect(groupsPassingFilter(rewards, 5, { low: 0.3, high: 0.7 })).toEqual([false, false, true, false, false]);
  });

  it('drops a group of 8 with one correct (mean 0.125) or seven (0.875)', () => {
    const one = [1, 0, 0, 0, 0, 0, 0, 0];
    const seven = [0, 1, 1, 1, 1, 1, 1, 1];
    const two = [1, 1, 0, 0, 0, 0, 0, 0];
    expect(groupsPassingFilter([...one, ...seven, ...two], 8, DEFAULT_FILTER_BAND)).toEqual([false, false, true]);
  });

  it('treats non-integer rewards that sum to an edge as on the edge', () => {
    // (0.1 + 0.2 + 0)/3 = 0.10000000000000002 in floating point, a hair above the high edge 0.1
    expect(groupsPassingFilter([0.1, 0.2, 0], 3, { low: 0, high: 0.1 })).toEqual([true]);
    expect(groupsPassingFilter([0.1, 0.2, 0.01], 3, { low: 0, high: 0.1 })).toEqual([false]);
  });

  it('the band [0, 1] keeps everything', () => {
    expect(groupsPassingFilter([0, 0, 1, 1], 2, { low: 0, high: 1 })).toEqual([true, true]);
  });

  it('rejects bad group sizes and inverted bands', () => {
    expect(() => groupsPassingFilter([1, 0, 1], 2, DEFAULT_FILTER_BAND)).toThrow(RangeError);
    expect(() => groupsPassingFilter([1, 0], 2, { low: 0.8, high: 0.2 })).toThrow(RangeError);
  });
});

describe('keptRolloutIndices', () => {
  it('keeps every member of each passing group and nothing else: rollout i is in group floor(i / groupSize)', () => {
    // 4 groups of 3 (12 rollouts); groups 1 and 3 pass
    expect(keptRolloutIndices([false, true, false, true], 3)).toEqual([3, 4, 5, 9, 10, 11]);
    expect(keptRolloutIndices([true, false], 4)).toEqual([0, 1, 2, 3]);
    expect(keptRolloutIndices([false, false], 4)).toEqual([]);
  });

  it('keeps the groups the filter passes, each with its own rewards', () => {
    // groups of 4: [all wrong], [one right], [all right], [two right] with the band [0.2, 0.8]
    const rewards = [0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 0];
    const kept = keptRolloutIndices(groupsPassingFilter(rewards, 4, { low: 0.2, high: 0.8 }), 4);
    expect(kept).toEqual([4, 5, 6, 7, 12, 13, 14, 15]);
    expect(kept.map((i) => rewards[i])).toEqual([0, 1, 0, 0, 1, 0, 1, 0]);
  });
});
