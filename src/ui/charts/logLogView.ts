/**
 * What the log-log view draws: the points usable on log axes (step > 0, value > 0), the
 * least-squares power law through them, and the statistics printed on the plot (ZeroTIR's
 * Spearman rho of the metric against step, and the R^2 of the fit).
 */
import { logLogFit, spearmanRho } from '../../core/metrics/scalingLaw';

export interface LogLogView {
  steps: number[];
  values: number[];
  /** exp(intercept) * step^slope at each of `steps`; empty without a fit. */
  fitted: number[];
  rho: number;
  slope: number;
  r2: number;
  n: number;
}

export function logLogView(steps: ArrayLike<number>, column: ArrayLike<number | null>): LogLogView {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < steps.length; i++) {
    const y = column[i];
    if (steps[i] > 0 && y !== null && Number.isFinite(y) && y > 0) {
      xs.push(steps[i]);
      ys.push(y);
    }
  }
  const fit = logLogFit(xs, ys);
  const fitted = Number.isFinite(fit.slope) ? xs.map((x) => Math.exp(fit.intercept) * x ** fit.slope) : [];
  return { steps: xs, values: ys, fitted, rho: spearmanRho(xs, ys), slope: fit.slope, r2: fit.r2, n: fit.n };
}

export function logLogCaption(view: LogLogView): string {
  const f = (x: number, digits: number) => (Number.isFinite(x) ? x.toFixed(digits) : '–');
  return `Spearman ρ = ${f(view.rho, 3)}   R² = ${f(view.r2, 3)}   slope = ${f(view.slope, 3)}   n = ${view.n}`;
}
