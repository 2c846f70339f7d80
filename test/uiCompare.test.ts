import { describe, expect, it } from 'vitest';
import { compareData, compareVersion, labComparison, labEvalMatrix } from '../src/ui/charts/compareOverlay';
import { makeRun, type LabRun } from '../src/ui/state/labRun';
import { comparedRuns, createLabStore, putRun, toggleCompared } from '../src/ui/state/labStore';
import { LAB_PRESETS } from '../src/ui/state/presets';
import { defaultUrlState } from '../src/ui/state/urlState';
import { metricsAt } from './uiFixtures';

const quick = LAB_PRESETS.quick.config;

function labRun(id: string, nmax: number, codeCallFrequency: number[]) {
  return makeRun({
    id,
    name: `Nmax ${nmax}`,
    preset: 'quick',
    config: { ...quick, nmax },
    createdAt: 1,
    history: [metricsAt(0), ...codeCallFrequency.map((f, i) => metricsAt(i + 1, { codeCallFrequency: f, accuracy: f / 2 }))],
  });
}

describe('the compare view', () => {
  it('ticked runs, in tick order, overlaid on one step column; unticking and deleted runs drop out', () => {
    const store = createLabStore(defaultUrlState());
    putRun(store, labRun('a', 2, [0.2, 0.6]));
    putRun(store, labRun('b', 0, [0, 0, 0]));
    toggleCompared(store, 'b');
    toggleCompared(store, 'a');
    toggleCompared(store, 'ghost');
    expect(comparedRuns(store.getState()).map((r) => r.id)).toEqual(['b', 'a']);
    expect(compareData('codeCallFrequency')(store.getState())).toEqual([
      [0, 1, 2, 3],
      [null, 0, 0, 0],
      [null, 0.2, 0.6, null],
    ]);
    expect(compareVersion(store.getState())).toBe('b:0,a:0');
    toggleCompared(store, 'b');
    expect(comparedRuns(store.getState()).map((r) => r.id)).toEqual(['a']);
  });

  it("the table's target is the picked reference's final code-call frequency", () => {
    const runs = [labRun('a', 2, [0.2, 0.6]), labRun('b', 0, [0, 0.1, 0.1])];
    const byFirst = labComparison(runs, null);
    expect(byFirst.reference).toBe('Nmax 2');
    expect(byFirst.target).toBeCloseTo(0.4, 12);
    expect(byFirst.runs.map((r) => r.reachesTargetAt)).toEqual([2, null]);
    expect(byFirst.differences).toEqual([{ field: 'nmax', values: ['2', '0'] }]);
    const bySecond = labComparison(runs, 'b');
    expect(bySecond.target).toBeCloseTo(0.2 / 3, 12);
    expect(bySecond.runs.map((r) => r.reachesTargetAt)).toEqual([1, 2]);
  });

  it('the matrix holds the evaluated runs only, by train Nmax', () => {
    const a = { ...labRun('a', 2, [0.5]), evaluation: { 0: 0.25, 2: 0.5 } };
    const b = { ...labRun('b', 0, [0]), evaluation: { 0: 0.375 } };
    expect(labEvalMatrix([a, labRun('c', 1, [0])])?.rows.map((r) => r.label)).toEqual(['Nmax 2 (greedy accuracy)']);
    expect(labEvalMatrix([labRun('c', 1, [0])])).toBeNull();
    expect(labEvalMatrix([a, b])).toEqual({
      evalNmax: [0, 2],
      rows: [
        { label: 'Nmax 0 (greedy accuracy)', trainNmax: 0, seed: 1, passAtOne: [0.375, null] },
        { label: 'Nmax 2 (greedy accuracy)', trainNmax: 2, seed: 1, passAtOne: [0.25, 0.5] },
      ],
      ownNmaxGains: [],
      unpairedGains: [],
      gainsOverSeeds: [],
    });
  });

  it('a run with a pass@1 report puts its pass@1 blocks in the matrix, ahead of the greedy sweep figures', () => {
    const blocks = [{ nmax: 0, 'pass@1': 0.125 }, { nmax: 4, 'pass@1': 0.75 }];
    const report = { k: 8, blocks } as unknown as NonNullable<LabRun['passAtOne']>['report'];
    const a = { ...labRun('a', 2, [0.5]), evaluation: { 0: 0.25 }, passAtOne: { step: 1, report, evaluatedAt: 2 } };
    expect(labEvalMatrix([a])).toEqual({ evalNmax: [0, 4], rows: [{ label: 'Nmax 2 (pass@1, k 8)', trainNmax: 2, seed: 1, passAtOne: [0.125, 0.75] }], ownNmaxGains: [], unpairedGains: [], gainsOverSeeds: [] });
  });

  it('names the start model as what differs between a ZeroTIR run and a ReTool cold start', () => {
    const zero = labRun('z', 2, [0.1, 0.9]);
    const cold = { ...labRun('c', 2, [1, 1]), startFrom: 'coldstart' as const, config: { ...quick, nmax: 2, format: 'retool' as const } };
    const comparison = labComparison([zero, cold], null);
    expect(comparison.differences.map((d) => d.field)).toEqual(['format', 'start']);
    expect(comparison.differences.find((d) => d.field === 'start')?.values).toEqual(['base', 'coldstart']);
    expect(comparison.runs.map((r) => r.reachesTargetAt)).toEqual([2, 1]);
  });
});
