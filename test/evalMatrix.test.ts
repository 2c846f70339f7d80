import { describe, expect, it } from 'vitest';
import { evalMatrix, type EvalMatrixInput } from '../src/core/metrics/evalMatrix';

/** An arm's report: pass@1 per problem at its own Nmax, and `elsewhere` at Nmax 0. */
function arm(trainNmax: number, seed: number | null, perProblem: number[], elsewhere: number[] = perProblem): EvalMatrixInput {
  const passAtOne = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    label: `n${trainNmax} s${seed}`,
    trainNmax,
    seed,
    report: { blocks: [{ nmax: 0, 'pass@1': passAtOne(elsewhere), perProblem: elsewhere }, { nmax: trainNmax, 'pass@1': passAtOne(perProblem), perProblem }] },
  };
}

describe('train-Nmax by eval-Nmax matrix', () => {
  it('columns are every eval Nmax; rows ordered by trained Nmax, unknown last, then by seed; null where not evaluated', () => {
    const matrix = evalMatrix([
      { label: 'n2 s2', trainNmax: 2, seed: 2, report: { blocks: [{ nmax: 2, 'pass@1': 0.7 }] } },
      { label: 'n2', trainNmax: 2, seed: 1, report: { blocks: [{ nmax: 0, 'pass@1': 0.3 }, { nmax: 2, 'pass@1': 0.6 }] } },
      { label: 'sft', trainNmax: null, seed: null, report: { blocks: [{ nmax: 4, 'pass@1': 0.5 }] } },
      { label: 'n0', trainNmax: 0, seed: 1, report: { blocks: [{ nmax: 1, 'pass@1': 0.45 }, { nmax: 0, 'pass@1': 0.4 }] } },
    ]);
    expect(matrix).toEqual({
      evalNmax: [0, 1, 2, 4],
      rows: [
        { label: 'n0', trainNmax: 0, seed: 1, passAtOne: [0.4, 0.45, null, null] },
        { label: 'n2', trainNmax: 2, seed: 1, passAtOne: [0.3, null, 0.6, null] },
        { label: 'n2 s2', trainNmax: 2, seed: 2, passAtOne: [null, null, 0.7, null] },
        { label: 'sft', trainNmax: null, seed: null, passAtOne: [null, null, null, 0.5] },
      ],
      ownNmaxGains: [],
      unpairedGains: [],
      gainsOverSeeds: [],
    });
  });

  it('pairs each trained Nmax at its own Nmax with the next smaller one, problem by problem', () => {
    const matrix = evalMatrix([
      arm(2, 1, [1, 1, 0.5, 0.5]),
      arm(1, 1, [1, 0, 0.5, 1], [0, 0, 0, 0]),
      { label: 'old report', trainNmax: 4, seed: 1, report: { blocks: [{ nmax: 4, 'pass@1': 0.9 }] } },
      { label: 'sft', trainNmax: null, seed: null, report: { blocks: [{ nmax: 1, 'pass@1': 0.5, perProblem: [1, 1, 1, 1] }] } },
    ]);
    // Differences 0, 1, 0, -0.5: mean 0.125, sample variance 1.1875 / 3, s.e. sqrt(0.395833 / 4).
    expect(matrix.ownNmaxGains).toHaveLength(1);
    expect(matrix.ownNmaxGains[0]).toMatchObject({ fromNmax: 1, toNmax: 2, seed: 1 });
    expect(matrix.ownNmaxGains[0].difference).toBeCloseTo(0.125, 12);
    expect(matrix.ownNmaxGains[0].standardError).toBeCloseTo(Math.sqrt(1.1875 / 3 / 4), 12);
    expect(matrix.gainsOverSeeds).toEqual([]);
  });

  it("never pairs two seeds' arms: each seed's Nmax 8 arm against its own Nmax 4 arm", () => {
    // In order of trained Nmax the seed-2 Nmax 4 arm sits beside the seed-1 Nmax 8 arm; paired, they
    // would give 0.75 - 0 = 0.75, a gain neither seed measured.
    const matrix = evalMatrix([arm(4, 1, [1, 1, 0, 0]), arm(4, 2, [0, 0, 0, 0]), arm(8, 1, [1, 1, 1, 0]), arm(8, 2, [0, 0, 0, 1])]);
    expect(matrix.ownNmaxGains.map((g) => [g.fromNmax, g.toNmax, g.seed, g.difference])).toEqual([
      [4, 8, 1, 0.25],
      [4, 8, 2, 0.25],
    ]);
  });

  it('a gain measured at two seeds or more: its mean over the seeds, with the standard error over seeds', () => {
    const matrix = evalMatrix([
      arm(4, 1, [0, 0, 0, 0]),
      arm(8, 1, [1, 0, 0, 0]), // +0.25
      arm(4, 2, [1, 0, 0, 0]),
      arm(8, 2, [0, 0, 0, 0]), // -0.25
      arm(4, 3, [0, 0, 0, 0]),
      arm(8, 3, [1, 1, 0, 0]), // +0.5
      arm(2, 3, [0, 0, 0, 0]), // seed 3 alone has 2 -> 4: no mean over seeds for it
      arm(4, null, [0, 0, 0, 0]),
      arm(8, null, [1, 1, 1, 1]), // a seed unknown: its own gain, left out of the mean
    ]);
    expect(matrix.ownNmaxGains.map((g) => [g.fromNmax, g.toNmax, g.seed])).toEqual([
      [2, 4, 3],
      [4, 8, 1],
      [4, 8, 2],
      [4, 8, 3],
      [4, 8, null],
    ]);
    // Gains 0.25, -0.25, 0.5: mean 1/6; squared deviations 1/144, 25/144, 16/144 sum to 42/144,
    // sample variance 21/144, s.e. sqrt(21 / 144 / 3) = 0.2205.
    expect(matrix.gainsOverSeeds).toHaveLength(1);
    expect(matrix.gainsOverSeeds[0]).toMatchObject({ fromNmax: 4, toNmax: 8, seeds: [1, 2, 3] });
    expect(matrix.gainsOverSeeds[0].mean).toBeCloseTo(1 / 6, 12);
    expect(matrix.gainsOverSeeds[0].standardError).toBeCloseTo(Math.sqrt(21 / 144 / 3), 12);
  });
});

describe('arms sampled otherwise', () => {
  it('are not paired: the matrix names the settings that differ; k and the draws may differ', () => {
    const sampled = (input: EvalMatrixInput, settings: { temperature: number; topP: number; k: number }) => ({ ...input, report: { ...input.report, maxResponseTokens: 432, maxOutputChars: 64, ...settings } });
    const matrix = evalMatrix([
      sampled(arm(2, 1, [0, 0, 0, 0]), { temperature: 1, topP: 0.7, k: 4 }),
      sampled(arm(4, 1, [1, 0, 0, 0]), { temperature: 1, topP: 0.7, k: 8 }),
      sampled(arm(8, 1, [1, 1, 0, 0]), { temperature: 0.5, topP: 1, k: 8 }),
    ]);
    expect(matrix.ownNmaxGains.map((g) => [g.fromNmax, g.toNmax, g.difference])).toEqual([[2, 4, 0.25]]);
    expect(matrix.unpairedGains).toEqual([{ fromNmax: 4, toNmax: 8, seed: 1, reason: 'sampled otherwise: temperature 1 vs 0.5, topP 0.7 vs 1' }]);
  });
});

describe('a gain split by the depth of its problems', () => {
  /** Problems of depths 1, 1, 1, 5 (as an eval report's problemDepths gives them). */
  const withDepths = (input: EvalMatrixInput, problemDepths = [1, 1, 1, 5]): EvalMatrixInput => ({ ...input, report: { ...input.report, problemDepths } });

  it('gives each depth its part of the gain, the parts adding up to it, with pass@1 there on each side', () => {
    const [gain] = evalMatrix([withDepths(arm(4, 1, [1, 0.5, 1, 0])), withDepths(arm(8, 1, [0.5, 0.5, 0.75, 1]))]).ownNmaxGains;
    // Depth 1: differences -0.5, 0, -0.25 (mean -0.25) over 3 of the 4 problems; depth 5: +1 over 1 of 4.
    expect(gain.difference).toBeCloseTo(0.0625, 12);
    expect(gain.byDepth.map((p) => [p.depth, p.problems, p.fromPassAtOne, p.toPassAtOne])).toEqual([
      [1, 3, 2.5 / 3, 1.75 / 3],
      [5, 1, 0, 1],
    ]);
    expect(gain.byDepth[0].part).toBeCloseTo(-0.25 * 0.75, 12);
    expect(gain.byDepth[1].part).toBeCloseTo(0.25, 12);
    expect(gain.byDepth[0].part + gain.byDepth[1].part).toBeCloseTo(gain.difference, 12);
    // Depth 1's differences: sample variance (0.0625 + 0.0625 + 0) / 2, s.e. sqrt(0.0625 / 3), times its share 3/4.
    expect(gain.byDepth[0].standardError).toBeCloseTo(Math.sqrt(0.0625 / 3) * 0.75, 12);
    expect(gain.byDepth[1].standardError).toBe(0);
  });

  it('is not split when a report has no depths (from before them) or the two give other depths', () => {
    const [old] = evalMatrix([arm(4, 1, [1, 0, 1, 0]), withDepths(arm(8, 1, [1, 1, 1, 0]))]).ownNmaxGains;
    expect(old.difference).toBeCloseTo(0.25, 12);
    expect(old.byDepth).toEqual([]);
    const [other] = evalMatrix([withDepths(arm(4, 1, [1, 0, 1, 0])), withDepths(arm(8, 1, [1, 1, 1, 0]), [1, 1, 2, 5])]).ownNmaxGains;
    expect(other.byDepth).toEqual([]);
  });

  it("over seeds: each depth's part, its mean and the standard error over the seeds", () => {
    const matrix = evalMatrix([
      withDepths(arm(4, 1, [1, 1, 1, 0])),
      withDepths(arm(8, 1, [1, 1, 1, 1])), // depth 1: 0, depth 5: +0.25
      withDepths(arm(4, 2, [1, 1, 1, 0])),
      withDepths(arm(8, 2, [0, 1, 1, 1])), // depth 1: -0.25, depth 5: +0.25
      withDepths(arm(4, 3, [0, 1, 1, 0])),
      withDepths(arm(8, 3, [1, 1, 1, 0])), // depth 1: +0.25, depth 5: 0
    ]);
    const [overSeeds] = matrix.gainsOverSeeds;
    expect(overSeeds.byDepth.map((p) => p.depth)).toEqual([1, 5]);
    // Depth 1's parts 0, -0.25, 0.25: mean 0, sample variance 0.0625, s.e. sqrt(0.0625 / 3).
    expect(overSeeds.byDepth[0].mean).toBeCloseTo(0, 12);
    expect(overSeeds.byDepth[0].standardError).toBeCloseTo(Math.sqrt(0.0625 / 3), 12);
    // Depth 5's 0.25, 0.25, 0: mean 1/6; deviations 1/12, 1/12, -1/6: variance (1/144 + 1/144 + 4/144) / 2.
    expect(overSeeds.byDepth[1].mean).toBeCloseTo(1 / 6, 12);
    expect(overSeeds.byDepth[1].standardError).toBeCloseTo(Math.sqrt(3 / 144 / 3), 12);
    expect(overSeeds.mean).toBeCloseTo(overSeeds.byDepth[0].mean + overSeeds.byDepth[1].mean, 12);
  });

  it('over seeds: not split when a seed gave no depths', () => {
    const matrix = evalMatrix([withDepths(arm(4, 1, [1, 1, 1, 0])), withDepths(arm(8, 1, [1, 1, 1, 1])), arm(4, 2, [1, 1, 1, 0]), arm(8, 2, [0, 1, 1, 1])]);
    expect(matrix.gainsOverSeeds[0].byDepth).toEqual([]);
  });
});
