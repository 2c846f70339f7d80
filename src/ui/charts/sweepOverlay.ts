/**
 * The sweep's runs on one chart (the compare view draws its ticked runs the same way): uPlot wants
 * one shared x column, so the runs' step columns are merged and each run's values placed at its own
 * steps (null where it has none); one line per run in the run's own colour (runColours.ts).
 */
import type uPlot from 'uplot';
import type { LabRun } from '../state/labRun';
import type { MetricColumns } from '../state/runColumns';
import { lineSeries } from './UPlotChart';

export function overlayColumns(runs: LabRun[], metric: Exclude<keyof MetricColumns, 'step'>): [number[], ...(number | null)[][]] {
  const steps = [...new Set(runs.flatMap((r) => r.columns.step))].sort((a, b) => a - b);
  const index = new Map(steps.map((s, i) => [s, i]));
  const series = runs.map((run) => {
    const values: (number | null)[] = new Array(steps.length).fill(null);
    run.columns.step.forEach((step, i) => {
      values[index.get(step)!] = run.columns[metric][i];
    });
    return values;
  });
  return [steps, ...series];
}

/** Dash length in pixels; a repeat's gaps grow with its place, so a third copy shows between the second's dashes. */
const DASH = 8;

/**
 * One series per run. A run identical to an earlier one (`groups`: identicalRunGroups) would lie
 * exactly on that run's line and hide it, so it is dashed over it and its label names the run it
 * repeats: every run stays visible.
 */
export function overlaySeries(names: readonly string[], colours: readonly string[], groups: readonly number[][], extra: Partial<uPlot.Series> = {}): uPlot.Series[] {
  return names.map((name, i) => {
    const group = groups.find((g) => g.includes(i));
    const place = group ? group.indexOf(i) : 0;
    if (!group || place === 0) return lineSeries(name, colours[i], extra);
    return lineSeries(`${name} (same run as ${names[group[0]]}, dashed)`, colours[i], { ...extra, dash: [DASH, DASH * place] });
  });
}

/** The legend's marker of a dashed line is dashed too (uPlot draws every marker solid unless told). */
export function withDashedMarkers(options: Omit<uPlot.Options, 'width' | 'height'>): Omit<uPlot.Options, 'width' | 'height'> {
  return { ...options, legend: { ...options.legend, markers: { dash: (chart, i) => (chart.series[i]?.dash ? 'dashed' : 'solid') } } };
}
