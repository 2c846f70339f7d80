/**
 * summary.json: what a run came to. For each scalar figure, the means of the first and last
 * FINAL_WINDOW measured steps, and the scaling-law statistics against step (ZeroTIR: Spearman rho
 * and the R^2 of a least-squares line through log(metric) against log(step)); and the
 * self-correction share of the start policy beside the trained one's, so a reader sees whether
 * RL made the model repair its errors more often.
 *
 * Under a decaying learning rate the summed updates grow as ln(step), which by itself bends a
 * linear rise into a straight line on log-log axes. So a decaying run's summary also fits each
 * metric against its summed rate in steps of the first rate (`summedRateFit`): the step a run at the
 * constant first rate would be at after the same summed updates. Where the two fits differ, the
 * schedule, not the learning, made the power law.
 */
import type { ExperimentConfig } from '../experiment';
import { learningRateAt } from '../optim/learningRateSchedule';
import { meanOrNull } from './means';
import { logLogFit, spearmanRho } from './scalingLaw';
import { SCALAR_METRICS, type ScalarMetric, type StepMetrics } from './stepMetrics';

/**
 * What "final" means everywhere (summary.json, the compare tables, the sweep table, the CLI's last
 * line): the mean of the last this many measured steps; "first" is the mean of the first as many.
 */
export const FINAL_WINDOW = 10;

/**
 * The start policy's figures: the mean of the first this many measured steps. Step 1's rollouts are
 * sampled before any update, steps 2 and 3 after one and two small ones; the mean damps one
 * batch's noise in a rate that is often a few answers in a hundred.
 */
export const START_WINDOW = 3;

export interface MetricSummary {
  /** Means of the first and the last FINAL_WINDOW measured steps (the names are summary.json's). */
  first10: number | null;
  last10: number | null;
  spearmanRho: number | null;
  logLogSlope: number | null;
  logLogR2: number | null;
  /** The log-log fit against the summed rate (the header); null for a constant rate, where it is the fit against step. */
  summedRateFit: { logLogSlope: number | null; logLogR2: number | null } | null;
  points: number;
}

/** selfCorrectionShare (codeUse.ts) at the start and at the end of the run; null where never measured. */
export interface SelfCorrectionChange {
  /** Mean over the first START_WINDOW measured steps (startWindow). */
  start: number | null;
  startWindow: number;
  /** Mean over the last FINAL_WINDOW measured steps (finalWindow). */
  final: number | null;
  finalWindow: number;
}

export interface RunSummary {
  steps: number;
  metrics: Record<ScalarMetric, MetricSummary>;
  selfCorrectionShare: SelfCorrectionChange;
}

type RateSchedule = Pick<ExperimentConfig, 'learningRate' | 'learningRateDecaySteps'>;

/** `schedule`: the run's learning rate and its decay (summedRateFit); without it, as for a constant rate. */
export function summariseRun(history: StepMetrics[], schedule?: RateSchedule): RunSummary {
  const trained = history.filter((m) => m.step > 0);
  const metrics = {} as Record<ScalarMetric, MetricSummary>;
  const summedRate = schedule !== undefined && schedule.learningRateDecaySteps > 0 ? summedRateSteps(schedule, history.at(-1)?.step ?? 0) : null;
  for (const name of SCALAR_METRICS) {
    const points = history.filter((m) => m[name] !== null && Number.isFinite(m[name] as number));
    const steps = points.map((m) => m.step);
    const values = points.map((m) => m[name] as number);
    const fit = logLogFit(steps, values);
    const rateFit = summedRate === null ? null : logLogFit(steps.map((step) => summedRate[step]), values);
    metrics[name] = {
      first10: meanOrNull(values.slice(0, FINAL_WINDOW)),
      last10: meanOrNull(values.slice(-FINAL_WINDOW)),
      spearmanRho: finiteOrNull(spearmanRho(steps, values)),
      logLogSlope: finiteOrNull(fit.slope),
      logLogR2: finiteOrNull(fit.r2),
      summedRateFit: rateFit === null ? null : { logLogSlope: finiteOrNull(rateFit.slope), logLogR2: finiteOrNull(rateFit.r2) },
      points: points.length,
    };
  }
  return { steps: trained.length, metrics, selfCorrectionShare: selfCorrectionChange(history) };
}

function selfCorrectionChange(history: StepMetrics[]): SelfCorrectionChange {
  const shares = history.flatMap((m) => (m.selfCorrectionShare !== null && Number.isFinite(m.selfCorrectionShare) ? [m.selfCorrectionShare] : []));
  return {
    start: meanOrNull(shares.slice(0, START_WINDOW)),
    startWindow: START_WINDOW,
    final: meanOrNull(shares.slice(-FINAL_WINDOW)),
    finalWindow: FINAL_WINDOW,
  };
}

/** Index t: the rates of steps 1..t summed, over the first rate (0 at step 0). */
function summedRateSteps(schedule: RateSchedule, lastStep: number): number[] {
  const sums = [0];
  for (let t = 1; t <= lastStep; t++) sums.push(sums[t - 1] + learningRateAt(schedule, t) / schedule.learningRate);
  return sums;
}

function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}
