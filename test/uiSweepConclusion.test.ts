import { describe, expect, it } from 'vitest';
import { testSet } from '../src/core/tasks/splits';
import type { EvalReport } from '../src/core/eval/evalReport';
import { makeRun, type LabRun } from '../src/ui/state/labRun';
import { LAB_PRESETS } from '../src/ui/state/presets';
import { armGains, conclusionLine, identicalArmsNote, sweepFigures, type ArmFigure } from '../src/ui/controller/sweepConclusion';
import { metricsAt } from './uiFixtures';

const greedy = (nmax: number, accuracy: number, identicalGroup: number | null = null): ArmFigure => ({ nmax, accuracy, problems: 160, perProblem: null, problemDepths: null, identicalGroup });

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

/** The fields of a pass@1 report the sweep reads; `problemDepths` empty as in a report from before them. */
function passAtOneReport(nmax: number, perProblem: number[], problemDepths: number[] = []): EvalReport {
  const block = { nmax, 'pass@1': perProblem.reduce((a, b) => a + b, 0) / perProblem.length, perProblem } as EvalReport['blocks'][number];
  return { problems: perProblem.length, problemDepths, blocks: [block] } as EvalReport;
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
    const a: ArmFigure = { nmax: 1, accuracy: 0.5, problems: 40, perProblem: scores(40, 20), problemDepths: null, identicalGroup: null };
    const b: ArmFigure = { nmax: 2, accuracy: 0.65, problems: 40, perProblem: scores(40, 26), problemDepths: null, identicalGroup: null };
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

  it('with the depths of the problems: the depths whose part of a gain is beyond noise', () => {
    // 30 problems of depth 1, then 10 of depth 3. The Nmax 4 arm answers every depth-3 problem and
    // loses two depth-1 ones: parts -0.05 (s.e. 0.035, within noise: not named) and +0.25 (s.e. 0).
    const depths = [...Array<number>(30).fill(1), ...Array<number>(10).fill(3)];
    const from = scores(40, 20);
    const to = [...scores(30, 18), ...Array<number>(10).fill(1)];
    const arm = (nmax: number, perProblem: number[]): ArmFigure => ({ nmax, accuracy: perProblem.reduce((x, y) => x + y, 0) / 40, problems: 40, perProblem, problemDepths: depths, identicalGroup: null });
    const [gain] = armGains([arm(2, from), arm(4, to)]);
    expect(gain.byDepth.map((p) => [p.depth, p.problems])).toEqual([[1, 30], [3, 10]]);
    expect(gain.byDepth[0].part).toBeCloseTo(-0.05, 12);
    // Depth 1's differences: two -1s in 30, sd sqrt((2 (14/15)^2 + 28 (1/15)^2) / 29), over sqrt(30), times 30/40.
    expect(gain.byDepth[0].standardError).toBeCloseTo(Math.sqrt((2 * (14 / 15) ** 2 + 28 * (1 / 15) ** 2) / 29 / 30) * 0.75, 12);
    expect(gain.byDepth[1].part).toBeCloseTo(0.25, 12);
    // The whole gain: ten 1s, two -1s, 28 0s: mean 0.2, sd sqrt(10.4 / 39), over sqrt(40) = 0.082.
    expect(conclusionLine({ figure: 'pass@1', arms: [arm(2, from), arm(4, to)] })).toBe(
      "Held-out pass@1 at each run's own Nmax (40 problems, paired; beyond noise = more than 2 standard errors, the evaluation's: another seed's training moves a gain too; depth d = the part of the problems whose step-by-step solution takes d calls, where beyond noise): Nmax 2 → 4: +0.20 ± 0.08 (beyond noise; depth 3 +0.25).",
    );
    // Arms that list other depths are not split.
    expect(armGains([arm(2, from), { ...arm(4, to), problemDepths: [...depths.slice(1), 2] }])[0].byDepth).toEqual([]);
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
      { nmax: 0, accuracy: 0.1, problems: testSet().length, perProblem: null, problemDepths: null, identicalGroup: null },
      { nmax: 4, accuracy: 0.55, problems: testSet().length, perProblem: null, problemDepths: null, identicalGroup: 0 },
      { nmax: 8, accuracy: 0.55, problems: testSet().length, perProblem: null, problemDepths: null, identicalGroup: 0 },
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
    // Reports from before the depths: none to split by.
    expect(both.arms.map((arm) => arm.problemDepths)).toEqual([null, null]);
    const depths = Array.from({ length: 40 }, (_, i) => 1 + (i % 5));
    const withDepths = sweepFigures([a, { ...b, passAtOne: { ...b.passAtOne, report: passAtOneReport(2, scores(40, 26), depths) } }]);
    expect(withDepths.arms.map((arm) => arm.problemDepths)).toEqual([null, depths]);
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
