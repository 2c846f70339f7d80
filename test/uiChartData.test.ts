import { describe, expect, it } from 'vitest';
import { formatLegendValue, latestValue } from '../src/ui/charts/legendValue';
import { logLogCaption, logLogView } from '../src/ui/charts/logLogView';
import { runVersion } from '../src/ui/charts/runCharts';
import { overlayColumns } from '../src/ui/charts/sweepOverlay';
import { makeRun } from '../src/ui/state/labRun';
import { createLabStore, putRun } from '../src/ui/state/labStore';
import { truncateColumns } from '../src/ui/state/runColumns';
import { defaultUrlState } from '../src/ui/state/urlState';
import { LAB_PRESETS } from '../src/ui/state/presets';
import { metricsAt } from './uiFixtures';

describe('log-log view', () => {
  it('fits an exact power law: y = 0.1 * step^0.5 gives slope 0.5, R^2 1, rho 1, and the fitted line through the points', () => {
    const steps = [0, 1, 4, 9, 16];
    const values = [0.05, 0.1, 0.2, 0.3, 0.4];
    const view = logLogView(steps, values);
    // Step 0 cannot go on a log axis.
    expect(view.steps).toEqual([1, 4, 9, 16]);
    expect(view.slope).toBeCloseTo(0.5, 12);
    expect(view.r2).toBeCloseTo(1, 12);
    expect(view.rho).toBe(1);
    expect(view.n).toBe(4);
    view.fitted.forEach((y, i) => expect(y).toBeCloseTo(values[i + 1], 12));
    expect(logLogCaption(view)).toBe('Spearman ρ = 1.000   R² = 1.000   slope = 0.500   n = 4');
  });

  it('skips missing and non-positive values and prints dashes without a fit', () => {
    const view = logLogView([1, 2, 3], [null, 0, 0.5]);
    expect(view.steps).toEqual([3]);
    expect(view.fitted).toEqual([]);
    expect(logLogCaption(view)).toBe('Spearman ρ = –   R² = –   slope = –   n = 1');
  });
});

describe('sweep overlay', () => {
  it('merges the runs onto one step column with nulls where a run has no value', () => {
    const config = LAB_PRESETS.quick.config;
    const a = makeRun({ id: 'a', name: 'a', preset: 'quick', config, createdAt: 1, history: [0, 1, 2].map((s) => metricsAt(s, { accuracy: s / 10 })) });
    const b = makeRun({ id: 'b', name: 'b', preset: 'quick', config, createdAt: 2, history: [0, 2, 4].map((s) => metricsAt(s, { accuracy: s })) });
    expect(overlayColumns([a, b], 'accuracy')).toEqual([
      [0, 1, 2, 4],
      [0, 0.1, 0.2, null],
      [0, null, 2, 4],
    ]);
  });
});

describe("the shown run's charts", () => {
  it('redraw when its columns change in place, with no other change to the run, and when another run is shown', () => {
    const store = createLabStore(defaultUrlState());
    const config = LAB_PRESETS.quick.config;
    const history = [0, 1, 2].map((s) => metricsAt(s));
    putRun(store, makeRun({ id: 'a', name: 'a', preset: 'quick', config, createdAt: 1, history }));
    putRun(store, makeRun({ id: 'b', name: 'b', preset: 'quick', config, createdAt: 2, history }));
    store.setState({ selectedRunId: 'a' });
    const shown = runVersion(store.getState());
    truncateColumns(store.getState().runs.a.columns, 2);
    const cut = runVersion(store.getState());
    expect(cut).not.toBe(shown);
    store.setState({ selectedRunId: 'b' });
    expect(runVersion(store.getState())).not.toBe(cut);
  });
});

describe('legend values', () => {
  it('the latest value skips the gaps of a sparse series, and is null for a series with no point', () => {
    expect(latestValue([0.1, 0.25, null, undefined])).toBe(0.25);
    expect(latestValue([null, null])).toBeNull();
    expect(latestValue([])).toBeNull();
  });

  it('three significant figures below 100, whole numbers from 100 up', () => {
    expect(formatLegendValue(0.123456)).toBe('0.123');
    expect(formatLegendValue(0)).toBe('0');
    expect(formatLegendValue(15.04)).toBe('15');
    expect(formatLegendValue(15.25)).toBe('15.3');
    expect(formatLegendValue(123.6)).toBe('124');
    expect(formatLegendValue(-0.000123456)).toBe('-0.000123');
  });
});
