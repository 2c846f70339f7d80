import { describe, expect, it } from 'vitest';
import { summariseRun } from '../src/core/metrics/runSummary';
import { emptyStepMetrics } from '../src/core/metrics/stepMetrics';
import { logLogFit, spearmanRho } from '../src/core/metrics/scalingLaw';

describe('spearmanRho', () => {
  it('averages tied ranks', () => {
    // xs ranks 1..5; ys [10, 20, 20, 40, 30] rank [1, 2.5, 2.5, 5, 4]; both rank means 3
    // deviations x: -2, -1, 0, 1, 2; y: -2, -0.5, -0.5, 2, 1
    // sum dx*dy = 4 + 0.5 + 0 + 2 + 2 = 8.5; sum dx^2 = 10; sum dy^2 = 4 + 0.25 + 0.25 + 4 + 1 = 9.5
    // rho = 8.5 / sqrt(95) = 0.8720816
    expect(spearmanRho([1, 2, 3, 4, 5], [10, 20, 20, 40, 30])).toBeCloseTo(0.8720816, 6);
  });

  it('is 1 for any increasing relation and -1 for a decreasing one', () => {
    const steps = [1, 2, 3, 4, 5, 6];
    expect(spearmanRho(steps, steps.map((s) => Math.exp(s)))).toBeCloseTo(1, 12);
    expect(spearmanRho(steps, steps.map((s) => -(s ** 3)))).toBeCloseTo(-1, 12);
  });

  it('ranks ties in xs too, and does not depend on input order', () => {
    // xs [1, 1, 2] ranks [1.5, 1.5, 3]; ys [3, 1, 2] ranks [3, 1, 2]; means 2
    // dx -0.5, -0.5, 1; dy 1, -1, 0: sum dx*dy = 0; rho = 0
    expect(spearmanRho([1, 1, 2], [3, 1, 2])).toBe(0);
    expect(spearmanRho([5, 4, 3, 2, 1], [30, 40, 20, 20, 10])).toBeCloseTo(0.8720816, 6);
  });

  it('skips pairs with a non-finite value (a metric measured every K steps)', () => {
    expect(spearmanRho([1, 2, 3, 4, 5, 6], [10, NaN, 20, 20, 40, 30])).toBeCloseTo(0.8720816, 6);
  });

  it('is NaN below two points or with zero variance', () => {
    expect(spearmanRho([1], [2])).toBeNaN();
    expect(spearmanRho([], [])).toBeNaN();
    expect(spearmanRho([1, 2, 3], [0.5, 0.5, 0.5])).toBeNaN();
    expect(() => spearmanRho([1, 2], [1])).toThrow(RangeError);
  });
});

describe('logLogFit', () => {
  it('recovers y = 3 x^0.5 exactly, skipping x <= 0 and y <= 0', () => {
    // ln y = ln 3 + 0.5 ln x: slope 0.5, intercept ln 3 = 1.0986123; the points at x = 0 and y = -1 are skipped
    const fit = logLogFit([0, 1, 4, 9, 16, 25], [0, 3, 6, 9, 12, -1]);
    expect(fit.n).toBe(4);
    expect(fit.slope).toBeCloseTo(0.5, 12);
    expect(fit.intercept).toBeCloseTo(Math.log(3), 12);
    expect(fit.r2).toBeCloseTo(1, 12);
  });

  it('fits a noisy case by hand', () => {
    // ln x = 0, 1, 2; ln y = 0, 1.5, 2 (mean 7/6)
    // Sxy = (-1)(-7/6) + 0 + (1)(5/6) = 2; Sxx = 2 -> slope 1, intercept 7/6 - 1 = 1/6
    // residuals -1/6, 1/3, -1/6: SSres = 1/36 + 4/36 + 1/36 = 1/6
    // SStot = (49 + 4 + 25)/36 = 13/6 -> r2 = 1 - (1/6)/(13/6) = 12/13 = 0.9230769
    const fit = logLogFit([1, Math.E, Math.E ** 2], [1, Math.exp(1.5), Math.E ** 2]);
    expect(fit.n).toBe(3);
    expect(fit.slope).toBeCloseTo(1, 12);
    expect(fit.intercept).toBeCloseTo(1 / 6, 12);
    expect(fit.r2).toBeCloseTo(12 / 13, 12);
  });

  it('gives NaNs below two usable points or when every x is the same', () => {
    const few = logLogFit([0, 1, 2], [1, 2, 0]);
    expect(few.n).toBe(1);
    expect([few.slope, few.intercept, few.r2]).toEqual([NaN, NaN, NaN]);
    const sameX = logLogFit([2, 2], [1, 3]);
    expect(sameX.n).toBe(2);
    expect(sameX.slope).toBeNaN();
  });

  it('has slope 0 and an undefined r2 when every y is the same', () => {
    const flat = logLogFit([1, 2, 4], [0.5, 0.5, 0.5]);
    expect(flat.slope).toBe(0);
    expect(flat.intercept).toBeCloseTo(Math.log(0.5), 12);
    expect(flat.r2).toBeNaN();
  });
});

describe('summariseRun: the fit against the summed rate', () => {
  // Accuracy proportional to the summed rate of a rate halved after 2 steps: a straight line of
  // slope 1 against the summed rate; against step, the schedule's ln(t) bends it.
  const schedule = { learningRate: 5e-5, learningRateDecaySteps: 2 };
  const summed = (t: number) => Array.from({ length: t }, (_, s) => 1 / (1 + s / 2)).reduce((a, b) => a + b, 0);
  const history = Array.from({ length: 81 }, (_, step) => ({ ...emptyStepMetrics(step), accuracy: step === 0 ? null : 0.01 * summed(step) }));

  it('is a perfect power law of slope 1 where accuracy tracks the summed updates, and differs from the fit against step', () => {
    const accuracy = summariseRun(history, schedule).metrics.accuracy;
    expect(accuracy.summedRateFit!.logLogSlope).toBeCloseTo(1, 10);
    expect(accuracy.summedRateFit!.logLogR2).toBeCloseTo(1, 10);
    expect(accuracy.logLogR2!).toBeLessThan(0.98);
    expect(accuracy.logLogSlope!).toBeLessThan(0.7);
  });

  it('is left out (null) for a constant rate, and without a schedule', () => {
    expect(summariseRun(history, { learningRate: 5e-5, learningRateDecaySteps: 0 }).metrics.accuracy.summedRateFit).toBeNull();
    expect(summariseRun(history).metrics.accuracy.summedRateFit).toBeNull();
  });
});
