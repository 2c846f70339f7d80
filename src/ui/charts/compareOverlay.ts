/**
 * The compare view's data from the ticked runs: their curves on one chart (the sweep's overlay,
 * one series per run), the comparison table (runComparison.ts, with the reference picked by run
 * id) and the train-Nmax by eval-Nmax matrix of the runs that were evaluated.
 */
import type uPlot from 'uplot';
import { compareRuns, type RunComparison } from '../../core/metrics/runComparison';
import { evalMatrix, type EvalMatrix } from '../../core/metrics/evalMatrix';
import type { LabRun } from '../state/labRun';
import { comparedRuns, type LabState } from '../state/labStore';
import { metricsRows, type MetricColumns } from '../state/runColumns';
import { overlayColumns } from './sweepOverlay';

export type CompareMetric = Exclude<keyof MetricColumns, 'step'>;

export function compareData(metric: CompareMetric): (state: LabState) => uPlot.AlignedData {
  return (state) => overlayColumns(comparedRuns(state), metric);
}

/** Changes when a ticked run records a step, or the ticks change. */
export function compareVersion(state: LabState): string {
  return comparedRuns(state)
    .map((r) => `${r.id}:${r.revision}`)
    .join(',');
}

/** The table's figures; the reference is the run with `referenceId`, else the first ticked. */
export function labComparison(runs: LabRun[], referenceId: string | null): RunComparison {
  const reference = Math.max(0, runs.findIndex((r) => r.id === referenceId));
  return compareRuns(
    runs.map((r) => ({ name: r.name, config: r.config, start: r.startFrom, metrics: metricsRows(r.columns) })),
    { reference },
  );
}

/**
 * Held-out accuracy by inference Nmax of the ticked runs that were evaluated: a run's pass@1 report
 * (the evaluation panel) where it has one, else the sweep's greedy accuracy, which is not pass@1
 * (one greedy answer per problem, no sampling), so each row's label says which it holds.
 */
export function labEvalMatrix(runs: LabRun[]): EvalMatrix | null {
  const blocksOf = (r: LabRun) =>
    r.passAtOne?.report.blocks ??
    Object.entries(r.evaluation ?? {}).map(([nmax, accuracy]) => ({ nmax: Number(nmax), 'pass@1': accuracy }));
  const figureOf = (r: LabRun) => (r.passAtOne ? `pass@1, k ${r.passAtOne.report.k}` : 'greedy accuracy');
  const evaluated = runs.filter((r) => blocksOf(r).length > 0);
  if (evaluated.length === 0) return null;
  return evalMatrix(
    evaluated.map((r) => ({
      label: `${r.name} (${figureOf(r)})`,
      trainNmax: r.config.nmax,
      seed: r.config.seed,
      report: { blocks: blocksOf(r) },
    })),
  );
}
