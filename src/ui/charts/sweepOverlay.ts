/**
 * The sweep's runs on one chart: uPlot wants one shared x column, so the runs' step columns are
 * merged and each run's values placed at its own steps (null where it has none).
 */
import type { LabRun } from '../state/labRun';
import type { MetricColumns } from '../state/runColumns';

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
