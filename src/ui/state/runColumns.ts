/**
 * A run's metrics as columns (uPlot's data model): one array per figure, index i = the i-th recorded
 * step. The charts, the export and the scaling-law statistics read these without conversion.
 * Columns grow in place, which is how uPlot is fed live (append, then setData).
 */
import { SCALAR_METRICS, type ScalarMetric, type StepMetrics } from '../../core/metrics/stepMetrics';

export type MetricColumns = { step: number[] } & Record<ScalarMetric | StepTimeColumn, (number | null)[]>;

export const STEP_TIME_COLUMNS = ['generateSeconds', 'executeSeconds', 'updateSeconds'] as const;
export type StepTimeColumn = (typeof STEP_TIME_COLUMNS)[number];

export function emptyColumns(): MetricColumns {
  const columns = { step: [] } as unknown as MetricColumns;
  for (const name of SCALAR_METRICS) columns[name] = [];
  for (const name of STEP_TIME_COLUMNS) columns[name] = [];
  return columns;
}

export function appendMetrics(columns: MetricColumns, metrics: StepMetrics): void {
  columns.step.push(metrics.step);
  for (const name of SCALAR_METRICS) columns[name].push(finiteOrNull(metrics[name]));
  columns.generateSeconds.push(finiteOrNull(metrics.seconds?.generate));
  columns.executeSeconds.push(finiteOrNull(metrics.seconds?.execute));
  columns.updateSeconds.push(finiteOrNull(metrics.seconds?.update));
}

export function columnsFromHistory(history: StepMetrics[]): MetricColumns {
  const columns = emptyColumns();
  for (const metrics of history) appendMetrics(columns, metrics);
  return columns;
}

/** Drops every recorded step at or after `step` (a reset, or a run continued from an earlier checkpoint). */
export function truncateColumns(columns: MetricColumns, step: number): void {
  let keep = columns.step.length;
  while (keep > 0 && columns.step[keep - 1] >= step) keep--;
  for (const column of Object.values(columns)) column.length = keep;
}

/** The latest non-null value of a column, or null. */
export function lastValue(column: (number | null)[]): number | null {
  for (let i = column.length - 1; i >= 0; i--) if (column[i] !== null) return column[i];
  return null;
}

function finiteOrNull(x: number | null | undefined): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}
