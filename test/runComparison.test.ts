import { describe, expect, it } from 'vitest';
import { PRESETS } from '../src/core/experiment';
import {
  compareRuns,
  configDifferences,
  depthFigures,
  finalMean,
  firstStepReaching,
  groupArms,
  runFigures,
  type ComparedRun,
} from '../src/core/metrics/runComparison';
import { pairedDifference } from '../src/core/metrics/pairedDifference';
import { emptyStepMetrics, type StepMetrics } from '../src/core/metrics/stepMetrics';

/** Step 0 (the base model's test only), then one row per code-call frequency given. */
function runMetrics(codeFrequency: number[], extra: (step: number) => Partial<StepMetrics> = () => ({})): StepMetrics[] {
  return [
    { ...emptyStepMetrics(0), testAccuracy: 0.1 },
    ...codeFrequency.map((f, i) => ({ ...emptyStepMetrics(i + 1), codeCallFrequency: f, ...extra(i + 1) })),
  ];
}

const classroom = PRESETS.classroom;

describe('final figures and the step a target is reached', () => {
  it('final = mean of the last 10 measured steps (FINAL_WINDOW); the first step at or above the target', () => {
    const metrics = runMetrics([0.1, 0.3, 0.5, 0.4, 0.6, 0.7, 0.8, 0.2, 0.2, 0.4, 0.6, 0.6]);
    // Steps 3..12: (0.5 + 0.4 + 0.6 + 0.7 + 0.8 + 0.2 + 0.2 + 0.4 + 0.6 + 0.6) / 10 = 0.5.
    expect(finalMean(metrics, 'codeCallFrequency')).toBeCloseTo(0.5, 12);
    // Fewer than 10 measured steps: the mean of those there are; none: null.
    expect(finalMean(metrics.slice(0, 3), 'codeCallFrequency')).toBeCloseTo(0.2, 12);
    expect(finalMean(metrics, 'singleCallShare')).toBeNull();
    expect(firstStepReaching(metrics, 'codeCallFrequency', 0.6)).toBe(5);
    expect(firstStepReaching(metrics, 'codeCallFrequency', 0.45)).toBe(3);
    expect(firstStepReaching(metrics, 'codeCallFrequency', 0.81)).toBeNull();
  });

  it('a run row: test accuracy last and best, batch accuracy first/last 10 and Spearman rho', () => {
    const accuracy = [0.2, 0.1, 0.4, 0.3];
    const tests: Record<number, number> = { 2: 0.5, 4: 0.4 };
    const metrics = runMetrics([0, 0, 0.5, 1], (step) => ({
      accuracy: accuracy[step - 1],
      testAccuracy: tests[step] ?? null,
      responseLength: 10 * step,
      singleCallShare: step >= 3 ? 1 : null,
      codePassRate: step >= 3 ? 0.5 * (step - 2) : null,
    }));
    const row = runFigures(metrics, 0.5);
    expect(row.steps).toBe(4);
    expect(row.finalCodeCallFrequency).toBeCloseTo(0.375, 12);
    expect(row.reachesTargetAt).toBe(3);
    // Tests at steps 0, 2, 4: 0.1, 0.5, 0.4.
    expect(row.finalTestAccuracy).toBe(0.4);
    expect(row.bestTestAccuracy).toBe(0.5);
    expect(row.accuracyFirst10).toBeCloseTo(0.25, 12);
    expect(row.accuracyLast10).toBeCloseTo(0.25, 12);
    // Ranks of accuracy 2,1,4,3 against 1,2,3,4: rho = 1 - 6 * 4 / (4 * 15) = 0.6.
    expect(row.accuracyRho).toBeCloseTo(0.6, 12);
    expect(row.finalSingleCallShare).toBe(1);
    expect(row.finalCodePassRate).toBeCloseTo(0.75, 12);
    expect(row.finalResponseLength).toBeCloseTo(25, 12);
    expect(runFigures(metrics, null).reachesTargetAt).toBeNull();
  });
});

describe('self-correction at the start and final, and the figures by depth', () => {
  it('the start share is the mean of the first START_WINDOW measured steps, the final of the last FINAL_WINDOW', () => {
    // Step 0 and step 2 measured none: the start window is steps 1, 3 and 4.
    const shares = [0.1, null, 0.2, 0.3, 0.4, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.6];
    const metrics = runMetrics(shares.map(() => 0.5), (step) => ({ selfCorrectionShare: shares[step - 1] }));
    const row = runFigures(metrics, null);
    expect(row.selfCorrectionShareStart).toBeCloseTo(0.2, 12);
    // The last ten measured: steps 5-14, (0.4 + 0.5 * 8 + 0.6) / 10 = 0.5.
    expect(row.finalSelfCorrectionShare).toBeCloseTo(0.5, 12);
    expect(runFigures(runMetrics([0.5]), null)).toMatchObject({ selfCorrectionShareStart: null, finalSelfCorrectionShare: null });
  });

  it("each depth's final is the mean of its last FINAL_WINDOW measured values; rows recorded before the figures count as unmeasured", () => {
    const metrics = runMetrics(Array(13).fill(0.5), (step) =>
      step <= 2
        ? {}
        : {
            singleCallShareByDepth: [1, step % 2 === 0 ? 0.5 : null, null, null, null],
            callsPerResponseByDepth: [1, step <= 4 ? 10 : 2, null, null, null],
          },
    );
    const { finalSingleCallShareByDepth, finalCallsPerResponseByDepth } = depthFigures(metrics);
    expect(finalSingleCallShareByDepth).toEqual([1, 0.5, null, null, null]);
    // Steps 3-13 have depth 2 measured: the last ten are steps 4-13, one 10 and nine 2s.
    expect(finalCallsPerResponseByDepth[1]).toBeCloseTo((10 + 9 * 2) / 10, 12);
    expect(finalCallsPerResponseByDepth).toEqual([1, expect.any(Number), null, null, null]);
    expect(depthFigures(runMetrics([0.5]))).toEqual({ finalSingleCallShareByDepth: [null, null, null, null, null], finalCallsPerResponseByDepth: [null, null, null, null, null] });
  });

  it("an arm's figures by depth are the means over its runs that measured them; runs carry theirs", () => {
    const run = (seed: number, single: (number | null)[], shares: number[]): ComparedRun => ({
      name: `s${seed}`,
      config: { ...classroom, seed },
      metrics: runMetrics([0.5], () => ({ singleCallShareByDepth: single, callsPerResponseByDepth: single.map((x) => (x === null ? null : 1 + x)), selfCorrectionShare: shares[0] })),
    });
    const { runs, arms } = compareRuns([run(1, [1, 0.5, null, null, null], [0.1]), run(2, [0.5, null, null, null, 0.25], [0.3])]);
    expect(runs[1].finalSingleCallShareByDepth).toEqual([0.5, null, null, null, 0.25]);
    expect(arms).toHaveLength(1);
    expect(arms[0].finalSingleCallShareByDepth).toEqual([0.75, 0.5, null, null, 0.25]);
    expect(arms[0].finalCallsPerResponseByDepth).toEqual([1.75, 1.5, null, null, 1.25]);
    expect(arms[0].selfCorrectionShareStart).toBeCloseTo(0.2, 12);
    expect(arms[0].finalSelfCorrectionShare).toBeCloseTo(0.2, 12);
  });
});

describe('cold start vs zero start', () => {
  const zero: ComparedRun = {
    name: 'zero-s1',
    config: { ...classroom, seed: 1, format: 'zerotir' },
    start: 'public/models/base',
    metrics: runMetrics([0.1, 0.2, 0.4, 0.6, 0.8, 0.9, 1.0]),
  };
  const cold = (seed: number, frequency: number[], singleCallShare: number | null): ComparedRun => ({
    name: `cold-s${seed}`,
    config: { ...classroom, seed, format: 'retool' },
    start: 'runs/coldstart-sft',
    metrics: runMetrics(frequency, () => ({ singleCallShare })),
  });
  const runs = [zero, cold(1, [0.5, 0.8, 0.9, 0.9], 1), cold(2, [0.6, 0.7, 0.75, 0.7], null), cold(3, [0.1, 0.2, 0.3], 0.5)];

  it("the target is the reference's final code-call frequency, and each run's first step reaching it", () => {
    const comparison = compareRuns(runs);
    // The zero start's seven steps, all inside the last 10: (0.1 + 0.2 + 0.4 + 0.6 + 0.8 + 0.9 + 1.0) / 7 = 4 / 7.
    expect(comparison.reference).toBe('zero-s1');
    expect(comparison.target).toBeCloseTo(4 / 7, 12);
    expect(comparison.runs.map((r) => [r.name, r.arm, r.seed, r.reachesTargetAt])).toEqual([
      ['zero-s1', 0, 1, 4],
      ['cold-s1', 1, 1, 2],
      ['cold-s2', 1, 2, 1],
      ['cold-s3', 1, 3, null],
    ]);
  });

  it('arms: configs equal but the seed; means over the runs that have a figure, and how many reached', () => {
    const { arms, differences } = compareRuns(runs);
    expect(differences).toEqual([
      { field: 'format', values: ['zerotir', 'retool'] },
      { field: 'start', values: ['public/models/base', 'runs/coldstart-sft'] },
    ]);
    expect(arms.map((a) => [a.label, a.n, a.seeds, a.reachedTarget])).toEqual([
      ['format zerotir, start public/models/base', 1, [1], 1],
      ['format retool, start runs/coldstart-sft', 3, [1, 2, 3], 2],
    ]);
    const coldArm = arms[1];
    // Reached at steps 2 and 1 (cold-s3 never did).
    expect(coldArm.reachesTargetAt).toBeCloseTo(1.5, 12);
    // Finals: (0.5+0.8+0.9+0.9)/4 = 0.775, (0.6+0.7+0.75+0.7)/4 = 0.6875, (0.1+0.2+0.3)/3 = 0.2.
    expect(coldArm.finalCodeCallFrequency).toBeCloseTo((0.775 + 0.6875 + 0.2) / 3, 12);
    // cold-s2 never measured a single-call share: the mean of 1 and 0.5.
    expect(coldArm.finalSingleCallShare).toBeCloseTo(0.75, 12);
    expect(coldArm.steps).toBeCloseTo((4 + 4 + 3) / 3, 12);
  });

  it('a reference by index, or a given target instead', () => {
    const byCold = compareRuns(runs, { reference: 1 });
    expect(byCold.reference).toBe('cold-s1');
    // cold-s1's four steps: 0.775; the zero start gets there at step 5 (0.8).
    expect(byCold.target).toBeCloseTo(0.775, 12);
    expect(byCold.runs.map((r) => r.reachesTargetAt)).toEqual([5, 2, null, null]);
    const given = compareRuns(runs, { target: 0.5 });
    expect(given.reference).toBeNull();
    expect(given.runs.map((r) => r.reachesTargetAt)).toEqual([4, 1, 1, null]);
    expect(() => compareRuns(runs, { reference: 4 })).toThrow(/reference 4 is not one of the 4 runs/);
  });
});

describe('arms and the fields that differ', () => {
  it('PPO vs Reinforce++ over seeds; a run with no known config is an arm of its own', () => {
    const run = (name: string, config: ComparedRun['config']): ComparedRun => ({ name, config, metrics: [] });
    const runs = [
      run('ppo-s1', { ...classroom, seed: 1 }),
      run('rpp-s1', { ...classroom, seed: 1, algorithm: 'reinforce++' }),
      run('ppo-s2', { ...classroom, seed: 2 }),
      run('unknown-a', {}),
      run('unknown-b', {}),
    ];
    expect(groupArms(runs)).toEqual([0, 1, 0, 2, 3]);
    const { differences, arms } = compareRuns(runs);
    // Fields unknown in the last two arms show as '?', and do not count as a difference by themselves.
    expect(differences).toEqual([{ field: 'algorithm', values: ['ppo', 'reinforce++', '?', '?'] }]);
    expect(arms.map((a) => a.label)).toEqual(['algorithm ppo', 'algorithm reinforce++', 'config unknown (unknown-a)', 'config unknown (unknown-b)']);
    expect(arms[0].runs).toEqual(['ppo-s1', 'ppo-s2']);
    // Nothing known tells a known arm from an unknown one: the known arm is named for its first run.
    const withUnknown = compareRuns([runs[0], runs[3]]);
    expect(withUnknown.differences).toEqual([]);
    expect(withUnknown.arms.map((a) => a.label)).toEqual(['ppo-s1', 'config unknown (unknown-a)']);
  });

  it('object fields compare by value whatever their key order, and show as their values', () => {
    const a: ComparedRun = { name: 'a', config: { nmax: 2, tierMix: { easy: 0.25, medium: 0.25, hard: 0.5 } }, metrics: [] };
    const b: ComparedRun = { name: 'b', config: { nmax: 2, tierMix: { hard: 0.5, medium: 0.25, easy: 0.25 } }, metrics: [] };
    const c: ComparedRun = { name: 'c', config: { nmax: 4, tierMix: { easy: 1, medium: 0, hard: 0 } }, metrics: [] };
    expect(groupArms([a, b, c])).toEqual([0, 0, 1]);
    expect(configDifferences([a, c])).toEqual([
      { field: 'nmax', values: ['2', '4'] },
      { field: 'tierMix', values: ['0.25/0.25/0.5', '1/0/0'] },
    ]);
    expect(compareRuns([a, b]).arms.map((arm) => arm.label)).toEqual(['same config']);
  });
});

describe('pairedDifference', () => {
  it('is the mean per-problem difference b - a with the sample standard error of those differences', () => {
    const paired = pairedDifference([1, 0, 0.5, 1], [1, 1, 0.5, 0.5]);
    expect(paired.difference).toBeCloseTo(0.125, 12);
    expect(paired.standardError).toBeCloseTo(0.3145764, 6);
    // Two arms that agree on every problem: no uncertainty in their difference, however hard the problems.
    expect(pairedDifference([0, 1, 0, 1], [0, 1, 0, 1])).toEqual({ difference: 0, standardError: 0 });
    expect(() => pairedDifference([1], [1, 0])).toThrow(/same problems/);
  });
});
