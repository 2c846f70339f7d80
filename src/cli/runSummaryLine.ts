/** What `npm run train` says when a run ends, and the exit code it ends with. */
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

/** How the loop ended, as the report needs it. */
export type RunEnd = { status: 'done' | 'interrupted' } | { status: 'failed'; error: unknown };

/**
 * The text a run ends with on stderr and its exit code: 0 done, 130 interrupted (saved), 1 when a
 * step failed, with the error and the command that continues the run from the last saved step.
 */
export function runEndReport(end: RunEnd, out: string, step: number, steps: number, wallSeconds: number, history: StepMetrics[]): { text: string; exitCode: number } {
  if (end.status === 'failed') {
    return {
      text:
        `\ntrain: step ${step + 1} failed: ${String(end.error)}\n` +
        `${runSummaryLine(`failed; saved at step ${step}`, out, step, steps, wallSeconds, history)}\n` +
        `continue it with: npm run train -- --resume ${out}\n`,
      exitCode: 1,
    };
  }
  const interrupted = end.status === 'interrupted';
  return { text: `\n${runSummaryLine(interrupted ? 'interrupted; saved' : 'done', out, step, steps, wallSeconds, history)}\n`, exitCode: interrupted ? 130 : 0 };
}
