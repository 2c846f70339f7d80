import { describe, expect, it } from 'vitest';
import { groupMeanBaseline, grpoNormalise, whiten } from '../src/core/rl/advantages';

function expectClose(actual: ArrayLike<number>, expected: number[], digits = 6): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) expect(actual[i]).toBeCloseTo(expected[i], digits);
}

// two groups of four: means 0.5 and 0.75
const rewards = [1, 0, 0, 1, 1, 1, 1, 0];

describe('groupMeanBaseline', () => {
  it('subtracts the mean of each group', () => {
    expect(groupMeanBaseline(rewards, 4)).toEqual([0.5, -0.5, -0.5, 0.5, 0.25, 0.25, 0.25, -0.75]);
  });

  it('rejects a group size that does not divide the batch', () => {
    expect(() => groupMeanBaseline(rewards, 3)).toThrow(RangeError);
    expect(() => groupMeanBaseline(rewards, 0)).toThrow(RangeError);
  });
});

describe('grpoNormalise', () => {
  it('divides by the population std of each group', () => {
    // group 1: mean 0.5, var (4 * 0.25)/4 = 0.25, std 0.5 -> +-1
    // group 2: mean 0.75, var (3*0.0625 + 0.5625)/4 = 0.1875, std 0.4330127
    //          0.25/0.4330127 = 0.5773503, -0.75/0.4330127 = -1.7320508
    expectClose(grpoNormalise(rewards, 4, 0), [1, -1, -1, 1, 0.5773503, 0.5773503, 0.5773503, -1.7320508]);
    // the default eps (1e-6) shrinks them only slightly: 0.5 / 0.500001
    expectClose(grpoNormalise(rewards, 4).slice(0, 1), [0.999998]);
  });

  it('gives exactly 0, not NaN, for zero-variance groups even with eps 0', () => {
    // groups: all correct, all wrong, half (mean 0.5, std 0.5 -> +-1)
    expect(grpoNormalise([1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 0], 4, 0)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, -1, 1, -1]);
    expect(grpoNormalise([1], 1)).toEqual([0]);
  });
});

describe('whiten', () => {
  it('whitens over the masked entries and zeroes the rest', () => {
    // masked values 1, 2, 3: mean 2, var (1 + 0 + 1)/3 = 2/3, std 0.8164966 -> -1.2247449, 0, 1.2247449
    expectClose(whiten([1, 2, 3, 4], [1, 1, 1, 0]), [-1.2247449, 0, 1.2247449, 0]);
  });

  it('uses every entry without a mask', () => {
    // [1, 3]: mean 2, std 1
    expectClose(whiten([1, 3]), [-1, 1]);
  });

  it('gives mean 0 and std 1 over the mask', () => {
    const values = [0.3, -1.2, 5, 2.5, 0, 7, -3];
    const mask = [1, 0, 1, 1, 1, 0, 1];
    const out = whiten(values, mask);
    const inside = Array.from(out).filter((_, i) => mask[i]);
    const mean = inside.reduce((s, v) => s + v, 0) / inside.length;
    const variance = inside.reduce((s, v) => s + (v - mean) ** 2, 0) / inside.length;
    expect(mean).toBeCloseTo(0, 6);
    expect(variance).toBeCloseTo(1, 5);
    expect([out[1], out[5]]).toEqual([0, 0]);
  });

  it('returns zeros for an empty mask or a constant input, never NaN', () => {
    expect(Array.from(whiten([1, 2], [0, 0]))).toEqual([0, 0]);
    expect(Array.from(whiten([3, 3, 3]))).toEqual([0, 0, 0]);
  });
});
