/** The line `npm run train` ends with. */
import { FINAL_WINDOW, summariseRun } from '../core/metrics/runSummary';
import type { StepMetrics } from '../core/metrics/stepMetrics';
import { formatDuration } from './progress';

/**
 * The last line a run prints: where it is, how far it got and what it came to (held-out accuracy
 * first to last, and the final means, over the last FINAL_WINDOW steps, that summary.json also holds), so a
 * reader need not open a file.
 */
export function runSummaryLine(outcome: string, out: string, step: number, steps: number, wallSeconds: number, history: StepMetrics[]): string {
  const tests = history.filter((m) => m.testAccuracy !== null);
  const summary = summariseRun(history).metrics;
  const f = (x: number | null | undefined, digits = 2) => (x === null || x === undefined ? 'n/a' : x.toFixed(digits));
  const test = tests.length > 0 ? `held-out accuracy ${f(tests[0].testAccuracy)} -> ${f(tests.at(-1)!.testAccuracy)}` : 'no held-out test';
  return (
    `${outcome}: ${out}, step ${step}/${steps} in ${formatDuration(wallSeconds)}; ${test}; ` +
    `last ${FINAL_WINDOW} steps: accuracy ${f(summary.accuracy.last10)}, code calls ${f(summary.codeCallFrequency.last10)}, length ${f(summary.responseLength.last10, 0)} tokens` +
    ` (metrics.jsonl, samples.jsonl, summary.json, checkpoint/)`
  );
}
