import { describe, expect, it } from 'vitest';
import { testSet } from '../src/core/tasks/splits';
import type { EvalReport } from '../src/core/eval/evalReport';
import { makeRun, type LabRun } from '../src/ui/state/labRun';
import { LAB_PRESETS } from '../src/ui/state/presets';
import { armGains, conclusionLine, identicalArmsNote, sweepFigures, type ArmFigure } from '../src/ui/controller/sweepConclusion';
import { metricsAt } from './uiFixtures';

const greedy = (nmax: number, accuracy: number, identicalGroup: number | null = null): ArmFigure => ({ nmax, accuracy, problems: 160, perProblem: null, identicalGroup });

/** n problems: the first `right` scored 1, the rest 0. */
const scores = (n: number, right: number) => Array.from({ length: n }, (_, i) => (i < right ? 1 : 0));

function sweepRun(id: string, nmax: number, accuracies: number[], evaluation: number | null): LabRun {
  const run = makeRun({
    id,
    name: `sweep Nmax ${nmax}`,
    preset: 'sweep',
    config: { ...LAB_PRESETS.sweep.config, nmax },
    createdAt: 1,
    history: accuracies.map((accuracy, step) => metricsAt(step, { accuracy })),
  });
  return { ...run, evaluation: evaluation === null ? null : { [nmax]: evaluation } };
}

function passAtOneReport(nmax: number, perProblem: number[]): EvalReport {
  const block = { nmax, 'pass@1': perProblem.reduce((a, b) => a + b, 0) / perProblem.length, perProblem } as EvalReport['blocks'][number];
  return { problems: perProblem.length, blocks: [block] } as EvalReport;
}

describe("the sweep's conclusion line", () => {
  it('a real difference is beyond noise, a small one within it: gains and standard errors from the arms’ figures', () => {
    // 0.10 -> 0.50 over 160 problems each: s.e. sqrt(0.09/159 + 0.25/159) = 0.0462, a gain of 8.7 s.e.
    // 0.50 -> 0.55: s.e. sqrt(0.25/159 + 0.2475/159) = 0.0559, a gain of 0.9 s.e.
    const arms = [greedy(0, 0.1), greedy(1, 0.5), greedy(2, 0.55)];
    const gains = armGains(arms);
    expect(gains.map((g) => [g.fromNmax, g.toNmax, g.verdict])).toEqual([
      [0, 1, 'beyond noise'],
      [1, 2, 'within noise'],
    ]);
    expect(gains[0].difference).toBeCloseTo(0.4, 12);
    expect(gains[0].standardError).toBeCloseTo(Math.sqrt(0.34 / 159), 12);
    expect(gains[1].standardError).toBeCloseTo(Math.sqrt(0.4975 / 159), 12);
    expect(conclusionLine({ figure: 'greedy accuracy', arms })).toBe(
      "Held-out greedy accuracy at each run's own Nmax (160 problems; beyond noise = more than 2 standard errors, the evaluation's: another seed's training moves a gain too): Nmax 0 → 1: +0.40 ± 0.05 (beyond noise); 1 → 2: +0.05 ± 0.06 (within noise).",
    );
  });

  it('a loss is judged like a gain, and the arms are taken in Nmax order whatever order they ran in', () => {
    const gains = armGains([greedy(4, 0.2), greedy(2, 0.6)]);
    expect(gains).toHaveLength(1);
    expect(gains[0]).toMatchObject({ fromNmax: 2, toNmax: 4, verdict: 'beyond noise' });
    expect(gains[0].difference).toBeCloseTo(-0.4, 12);
  });

  it('pairs the problems when both arms have per-problem scores: a gain within noise unpaired is beyond it paired', () => {
    // 40 problems; the second arm gets 6 more right and none wrong that the first got right.
    const a: ArmFigure = { nmax: 1, accuracy: 0.5, problems: 40, perProblem: scores(40, 20), identicalGroup: null };
    const b: ArmFigure = { nmax: 2, accuracy: 0.65, problems: 40, perProblem: scores(40, 26), identicalGroup: null };
    const [paired] = armGains([a, b]);
    // Differences: six 1s and 34 0s; sd sqrt((6 * 0.85^2 + 34 * 0.15^2) / 39) over sqrt(40) = 0.0572, 2.6 s.e.
    expect(paired.difference).toBeCloseTo(0.15, 12);
    expect(paired.standardError).toBeCloseTo(Math.sqrt((6 * 0.85 ** 2 + 34 * 0.15 ** 2) / 39 / 40), 12);
    expect(paired.verdict).toBe('beyond noise');
    // Without the pairing: s.e. sqrt(0.25/39 + 0.2275/39) = 0.111, 1.4 s.e.
    const [unpaired] = armGains([{ ...a, perProblem: null }, { ...b, perProblem: null }]);
    expect(unpaired.standardError).toBeCloseTo(Math.sqrt(0.4775 / 39), 12);
    expect(unpaired.verdict).toBe('within noise');
    expect(conclusionLine({ figure: 'pass@1', arms: [a, b] })).toBe(
      "Held-out pass@1 at each run's own Nmax (40 problems, paired; beyond noise = more than 2 standard errors, the evaluation's: another seed's training moves a gain too): Nmax 1 → 2: +0.15 ± 0.06 (beyond noise).",
    );
  });

  it('identical arms are said to be identical runs, not a gain within noise', () => {
    const arms = [greedy(2, 0.6), greedy(4, 0.6, 0), greedy(8, 0.6, 0)];
    expect(armGains(arms).map((g) => g.verdict)).toEqual(['within noise', 'identical runs']);
    expect(conclusionLine({ figure: 'greedy accuracy', arms })).toBe(
      "Held-out greedy accuracy at each run's own Nmax (160 problems; beyond noise = more than 2 standard errors, the evaluation's: another seed's training moves a gain too): Nmax 2 → 4: +0.00 ± 0.05 (within noise); 4 → 8: +0.00 (identical runs).",
    );
  });

  it('with fewer than two evaluated arms, says when the conclusion will come', () => {
    expect(conclusionLine({ figure: 'greedy accuracy', arms: [greedy(0, 0.1)] })).toBe(
      'The conclusion comes when two runs have been evaluated: which extra calls paid, beyond noise.',
    );
  });
});

describe("the sweep's figures from its runs", () => {
  it("each evaluated run's greedy accuracy at its own Nmax, over the test set; identical runs share a group", () => {
    const runs = [sweepRun('a', 0, [0.1, 0.2], 0.1), sweepRun('b', 4, [0.3, 0.5], 0.55), sweepRun('c', 8, [0.3, 0.5], 0.55), sweepRun('d', 16, [0.3], null)];
    const figures = sweepFigures(runs);
    expect(figures.figure).toBe('greedy accuracy');
    expect(figures.arms).toEqual([
      { nmax: 0, accuracy: 0.1, problems: testSet().length, perProblem: null, identicalGroup: null },
      { nmax: 4, accuracy: 0.55, problems: testSet().length, perProblem: null, identicalGroup: 0 },
      { nmax: 8, accuracy: 0.55, problems: testSet().length, perProblem: null, identicalGroup: 0 },
    ]);
  });

  it('pass@1 with its per-problem scores when every evaluated run has it at its own Nmax, else greedy for all', () => {
    const a = { ...sweepRun('a', 1, [0.1], 0.2), passAtOne: { step: 1, evaluatedAt: 1, report: passAtOneReport(1, scores(40, 20)) } };
    const b = { ...sweepRun('b', 2, [0.2], 0.3), passAtOne: { step: 1, evaluatedAt: 1, report: passAtOneReport(2, scores(40, 26)) } };
    const both = sweepFigures([a, b]);
    expect(both.figure).toBe('pass@1');
    expect(both.arms.map((arm) => [arm.accuracy, arm.problems, arm.perProblem?.length])).toEqual([
      [0.5, 40, 40],
      [0.65, 40, 40],
    ]);
    const oneOnly = sweepFigures([a, sweepRun('b', 2, [0.2], 0.3)]);
    expect(oneOnly.figure).toBe('greedy accuracy');
    expect(oneOnly.arms.map((arm) => arm.accuracy)).toEqual([0.2, 0.3]);
  });
});

describe('the words for identical arms', () => {
  it('names the arms by Nmax, and says why only where their Nmax differ', () => {
    expect(identicalArmsNote([0, 2, 4, 8], [[2, 3]])).toBe(
      'Nmax 4 and 8 trained identical runs: the same answers at every step (no answer used the extra calls), so their lines coincide; the later one is dashed over it.',
    );
    expect(identicalArmsNote([2, 4, 8], [[0, 1, 2]])).toBe(
      'Nmax 2, 4 and 8 trained identical runs: the same answers at every step (no answer used the extra calls), so their lines coincide; the later ones are dashed over the first.',
    );
    expect(identicalArmsNote([2, 2], [[0, 1]])).toBe('Nmax 2 and 2 trained identical runs: the same answers at every step, so their lines coincide; the later one is dashed over it.');
    expect(identicalArmsNote([0, 2], [])).toBeNull();
  });
});
