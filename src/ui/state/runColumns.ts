/**
 * A run's metrics, kept once, as columns (uPlot's data model): one array per figure, index i = the
 * i-th recorded step. The charts, the play bar and the statistics read them without conversion;
 * the rows that metrics.jsonl, the run file and IndexedDB hold (StepMetrics) are derived at that
 * edge by metricsRows. A figure that is not a finite number (NaN from a diverged run, absent in an
 * old record) is null: "not measured" on a chart, and null in JSON, as NaN is written there anyway.
 *
 * The columns change in place, in the store (labStore.ts): appendMetrics and truncateColumns are
 * their only writers, and each gives them a new `revision`, which is what a chart keys its redraw
 * on. Copying them at every step instead (a pure reducer) costs O(steps) a step, O(steps^2) a run:
 * the 33 columns at 10,000 rows took ~10 ms a step to copy in Node here, at 100,000 (the steps
 * knob's limit) ~220 ms on the page's thread, against a hundredth of that or less to append; and
 * uPlot's setData takes the grown arrays as they are.
 */
import { emptyStepMetrics, SCALAR_METRICS, type ScalarMetric, type StepMetrics } from '../../core/metrics/stepMetrics';

/** The step-time split (StepMetrics.seconds), one number column per part, as the step-time chart plots it. */
export const STEP_TIME_COLUMNS = ['generateSeconds', 'executeSeconds', 'updateSeconds'] as const;
export type StepTimeColumn = (typeof STEP_TIME_COLUMNS)[number];

/** The figures that are not numbers, kept per step as recorded. */
export const RECORD_COLUMNS = ['callsHistogram', 'singleCallShareByDepth', 'callsPerResponseByDepth', 'accuracyByKind', 'accuracyByFamily'] as const;
export type RecordColumn = (typeof RECORD_COLUMNS)[number];

/** The number columns, which the charts plot against `step`. */
export type MetricColumns = { step: number[] } & Record<ScalarMetric | StepTimeColumn, (number | null)[]>;
/**
 * Every figure of a run's steps: the number columns and the recorded ones, and their revision: a
 * number no columns of this page had before, given at every change (so a view keyed on it alone
 * redraws when the columns grow, shrink or are replaced by others).
 */
export type RunColumns = MetricColumns & { [K in RecordColumn]: StepMetrics[K][] } & { revision: number };

let lastRevision = 0;

function nextRevision(): number {
  return ++lastRevision;
}

export function emptyColumns(): RunColumns {
  const columns = { step: [], revision: nextRevision() } as unknown as RunColumns;
  for (const name of SCALAR_METRICS) columns[name] = [];
  for (const name of STEP_TIME_COLUMNS) columns[name] = [];
  for (const name of RECORD_COLUMNS) columns[name] = [];
  return columns;
}

/** Records one more step, in place. */
export function appendMetrics(columns: RunColumns, metrics: StepMetrics): void {
  columns.revision = nextRevision();
  columns.step.push(metrics.step);
  for (const name of SCALAR_METRICS) columns[name].push(finiteOrNull(metrics[name]));
  columns.generateSeconds.push(finiteOrNull(metrics.seconds?.generate));
  columns.executeSeconds.push(finiteOrNull(metrics.seconds?.execute));
  columns.updateSeconds.push(finiteOrNull(metrics.seconds?.update));
  columns.callsHistogram.push(metrics.callsHistogram ?? null);
  columns.singleCallShareByDepth.push(metrics.singleCallShareByDepth ?? null);
  columns.callsPerResponseByDepth.push(metrics.callsPerResponseByDepth ?? null);
  columns.accuracyByKind.push(metrics.accuracyByKind ?? null);
  columns.accuracyByFamily.push(metrics.accuracyByFamily ?? null);
}

export function columnsFromHistory(history: StepMetrics[]): RunColumns {
  const columns = emptyColumns();
  for (const metrics of history) appendMetrics(columns, metrics);
  return columns;
}

/** The i-th recorded step as a StepMetrics row. */
export function metricsRow(columns: RunColumns, i: number): StepMetrics {
  const row = emptyStepMetrics(columns.step[i]);
  for (const name of SCALAR_METRICS) row[name] = columns[name][i];
  const [generate, execute, update] = STEP_TIME_COLUMNS.map((name) => columns[name][i]);
  row.seconds = generate === null || execute === null || update === null ? null : { generate, execute, update };
  row.callsHistogram = columns.callsHistogram[i];
  row.singleCallShareByDepth = columns.singleCallShareByDepth[i];
  row.callsPerResponseByDepth = columns.callsPerResponseByDepth[i];
  row.accuracyByKind = columns.accuracyByKind[i];
  row.accuracyByFamily = columns.accuracyByFamily[i];
  return row;
}

/** Every recorded step as rows, in step order (metrics.jsonl's lines, the run file's metrics). */
export function metricsRows(columns: RunColumns): StepMetrics[] {
  return columns.step.map((_, i) => metricsRow(columns, i));
}

/** Whether the i-th recorded step holds exactly `row`'s figures (a row written earlier). */
export function rowIs(columns: RunColumns, i: number, row: StepMetrics): boolean {
  if (columns.step[i] !== row.step) return false;
  if (SCALAR_METRICS.some((name) => columns[name][i] !== row[name])) return false;
  const [generate, execute, update] = STEP_TIME_COLUMNS.map((name) => columns[name][i]);
  if (generate !== (row.seconds?.generate ?? null) || execute !== (row.seconds?.execute ?? null) || update !== (row.seconds?.update ?? null)) return false;
  return RECORD_COLUMNS.every((name) => columns[name][i] === row[name] || JSON.stringify(columns[name][i]) === JSON.stringify(row[name]));
}

/** Drops every recorded step at or after `step`, in place (a reset, or a run continued from an earlier checkpoint). */
export function truncateColumns(columns: RunColumns, step: number): void {
  let keep = columns.step.length;
  while (keep > 0 && columns.step[keep - 1] >= step) keep--;
  if (keep === columns.step.length) return;
  columns.revision = nextRevision();
  columns.step.length = keep;
  for (const name of SCALAR_METRICS) columns[name].length = keep;
  for (const name of STEP_TIME_COLUMNS) columns[name].length = keep;
  for (const name of RECORD_COLUMNS) columns[name].length = keep;
}

/** The latest non-null value of a column, or null. */
export function lastValue(column: (number | null)[]): number | null {
  for (let i = column.length - 1; i >= 0; i--) if (column[i] !== null) return column[i];
  return null;
}

/** The index of the latest step at which `column` has a value, or -1. */
export function lastIndexWithValue(column: unknown[]): number {
  for (let i = column.length - 1; i >= 0; i--) if (column[i] !== null) return i;
  return -1;
}

function finiteOrNull(x: number | null | undefined): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}
