import { describe, expect, it } from 'vitest';
import { colourAt, coloursOf, runColours } from '../src/ui/charts/runColours';
import type uPlot from 'uplot';
import { overlaySeries, withDashedMarkers } from '../src/ui/charts/sweepOverlay';
import { SERIES_COLOURS } from '../src/ui/charts/UPlotChart';
import { identicalRunGroups, trainedIdentically } from '../src/ui/controller/identicalRuns';
import { makeRun, type LabRun } from '../src/ui/state/labRun';
import { createLabStore, putRun, toggleCompared } from '../src/ui/state/labStore';
import { LAB_PRESETS } from '../src/ui/state/presets';
import { defaultUrlState } from '../src/ui/state/urlState';
import type { StepMetrics } from '../src/core/metrics/stepMetrics';
import { metricsAt } from './uiFixtures';

function run(id: string, figures: Partial<StepMetrics>[], createdAt = 1): LabRun {
  return makeRun({ id, name: id, preset: 'quick', config: LAB_PRESETS.quick.config, createdAt, history: figures.map((f, step) => metricsAt(step, f)) });
}

const steps = [
  { testAccuracy: 0.2 },
  { accuracy: 0.25, codeCallFrequency: 0.5, callsPerResponse: 0.5, responseLength: 40, policyTokens: 300, tokensPerSecond: 90 },
  { accuracy: 0.5, codeCallFrequency: 0.75, callsPerResponse: 1, responseLength: 52, policyTokens: 410, tokensPerSecond: 95 },
];

describe('identical runs', () => {
  it('the same answer figures at every step are identical, whatever the wall-clock figures', () => {
    const slower = steps.map((s) => ({ ...s, tokensPerSecond: 30 }));
    expect(trainedIdentically(run('a', steps), run('b', slower))).toBe(true);
  });

  it('one figure apart at one step, or one step short, is not identical; nor are two runs without steps', () => {
    const other = steps.map((s, i) => (i === 2 ? { ...s, responseLength: 53 } : s));
    expect(trainedIdentically(run('a', steps), run('b', other))).toBe(false);
    expect(trainedIdentically(run('a', steps), run('b', steps.slice(0, 2)))).toBe(false);
    expect(trainedIdentically(run('a', []), run('b', []))).toBe(false);
  });

  it('groups the identical runs by position, leaving the others out', () => {
    const other = steps.map((s) => ({ ...s, testAccuracy: 0.3 }));
    const runs = [run('n0', other), run('n2', steps), run('n4', steps), run('n8', steps), run('n1', [{ accuracy: 0.1 }])];
    expect(identicalRunGroups(runs)).toEqual([[1, 2, 3]]);
    expect(identicalRunGroups([runs[0], runs[4]])).toEqual([]);
  });
});

describe('overlay lines', () => {
  it('draws a run identical to an earlier one dashed over it, labelled with the run it repeats, so every run shows', () => {
    const series = overlaySeries(['Nmax 0', 'Nmax 2', 'Nmax 4', 'Nmax 8'], ['#a', '#b', '#c', '#d'], [[1, 2, 3]], { spanGaps: true });
    expect(series.map((s) => s.label)).toEqual(['Nmax 0', 'Nmax 2', 'Nmax 4 (same run as Nmax 2, dashed)', 'Nmax 8 (same run as Nmax 2, dashed)']);
    expect(series.map((s) => s.stroke)).toEqual(['#a', '#b', '#c', '#d']);
    // The first of a group is solid; each later one leaves longer gaps, so the ones under it show through.
    expect(series.map((s) => s.dash)).toEqual([undefined, undefined, [8, 8], [8, 16]]);
    expect(series.every((s) => s.spanGaps === true)).toBe(true);
  });

  it("the legend's marker of a dashed line is dashed, the others solid, and the legend keeps its other settings", () => {
    const series = [{}, ...overlaySeries(['Nmax 2', 'Nmax 4'], ['#a', '#b'], [[0, 1]])];
    const options = withDashedMarkers({ series, legend: { live: true } });
    const dash = options.legend?.markers?.dash as (chart: uPlot, i: number) => string;
    expect(series.map((_, i) => dash({ series } as uPlot, i))).toEqual(['solid', 'solid', 'dashed']);
    expect(options.legend?.live).toBe(true);
  });
});

describe('run colours', () => {
  it('a run has one colour in the sweep and the compare view, whatever the order it is ticked in', () => {
    const store = createLabStore(defaultUrlState());
    for (let i = 0; i < 10; i++) putRun(store, run(`r${i}`, [], 100 - i));
    // Creation order, oldest first: r9 (createdAt 91) ... r0 (100).
    const sweepIds = ['r3', 'r4'];
    for (const id of ['r4', 'r9', 'r3']) toggleCompared(store, id);
    const state = store.getState();
    const sweep = coloursOf(state, sweepIds);
    const compare = coloursOf(state, state.comparedRunIds);
    expect(compare).toEqual([sweep[1], colourAt(0), sweep[0]]);
    expect(sweep).toEqual([colourAt(6), colourAt(5)]);
  });

  it('every run a colour of its own, past the palette too; ties in creation time broken by id', () => {
    const colours = Object.values(runColours(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`r${i}`, { id: `r${i}`, createdAt: 0 }]))));
    expect(new Set(colours).size).toBe(40);
    expect(colours.slice(0, SERIES_COLOURS.length)).toEqual(SERIES_COLOURS);
    expect(runColours({ b: { id: 'b', createdAt: 5 }, a: { id: 'a', createdAt: 5 } })).toEqual({ a: SERIES_COLOURS[0], b: SERIES_COLOURS[1] });
  });
});
