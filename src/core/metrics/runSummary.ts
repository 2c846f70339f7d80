/**
 * summary.json: what a run came to. For each scalar figure, the means of the first and last
 * FINAL_WINDOW measured steps, and the scaling-law statistics against step (ZeroTIR: Spearman rho
 * and the R^2 of a least-squares line through log(metric) against log(step)).
 */
import { meanOrNull } from './means';
import { logLogFit, spearmanRho } from './scalingLaw';
import { SCALAR_METRICS, type ScalarMetric, type StepMetrics } from './stepMetrics';

/**
 * What "final" means everywhere (summary.json, the compare tables, the sweep table, the CLI's last
 * line): the mean of the last this many measured steps; "first" is the mean of the first as many.
 */
export const FINAL_WINDOW = 10;

export interface MetricSummary {
  /** Means of the first and the last FINAL_WINDOW measured steps (the names are summary.json's). */
  first10: number | null;
  last10: number | null;
  spearmanRho: number | null;
  logLogSlope: number | null;
  logLogR2: number | null;
  points: number;
}

export interface RunSummary {
  steps: number;
  metrics: Record<ScalarMetric, MetricSummary>;
}

export function summariseRun(history: StepMetrics[]): RunSummary {
  const trained = history.filter((m) => m.step > 0);
  const metrics = {} as Record<ScalarMetric, MetricSummary>;
  for (const name of SCALAR_METRICS) {
    const points = history.filter((m) => m[name] !== null && Number.isFinite(m[name] as number));
    const steps = points.map((m) => m.step);
    const values = points.map((m) => m[name] as number);
    const fit = logLogFit(steps, values);
    metrics[name] = {
      first10: meanOrNull(values.slice(0, FINAL_WINDOW)),
      last10: meanOrNull(values.slice(-FINAL_WINDOW)),
      spearmanRho: finiteOrNull(spearmanRho(steps, values)),
      logLogSlope: finiteOrNull(fit.slope),
      logLogR2: finiteOrNull(fit.r2),
      points: points.length,
    };
  }
  return { steps: trained.length, metrics };
}

function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}
