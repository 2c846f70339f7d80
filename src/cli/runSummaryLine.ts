/** What `npm run train` says when a run ends, and the exit code it ends with. */
import { constants } from 'node:os';
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
  const test = tests.length > 0 ? heldOut(tests[0], tests.at(-1)!, step, f) : 'no held-out test';
  return (
    `${outcome}: ${out}, step ${step}/${steps} in ${formatDuration(wallSeconds)}; ${test}; ` +
    `last ${FINAL_WINDOW} steps: accuracy ${f(summary.accuracy.last10)}, code calls ${f(summary.codeCallFrequency.last10)}, length ${f(summary.responseLength.last10, 0)} tokens` +
    ` (metrics.jsonl, samples.jsonl, summary.json, checkpoint/)`
  );
}

/**
 * Held-out accuracy first to last, naming the step of the last test when it is not the run's last
 * step: "0.22 -> 0.22" would read as a test at the end that found no change.
 */
function heldOut(first: StepMetrics, last: StepMetrics, step: number, f: (x: number | null) => string): string {
  if (last === first) return `held-out accuracy ${f(first.testAccuracy)} at step ${first.step}, no held-out test after it`;
  return `held-out accuracy ${f(first.testAccuracy)} -> ${f(last.testAccuracy)}${last.step === step ? '' : ` at step ${last.step}`}`;
}

/** How the loop ended, as the report needs it: for an interrupt, the signal that stopped it. */
export type RunEnd = { status: 'done' } | { status: 'interrupted'; signal: NodeJS.Signals } | { status: 'failed'; error: unknown };

/**
 * The text a run ends with on stderr and its exit code: 0 done, 128 + the signal's number when a
 * signal stopped it (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP; saved), 1 when a step failed; the last
 * two with the command that continues the run from the last saved step.
 */
export function runEndReport(end: RunEnd, out: string, step: number, steps: number, wallSeconds: number, history: StepMetrics[]): { text: string; exitCode: number } {
  if (end.status === 'failed') {
    return {
      text:
        `\ntrain: step ${step + 1} failed: ${String(end.error)}\n` +
        `${runSummaryLine(`failed; saved at step ${step}`, out, step, steps, wallSeconds, history)}\n` +
        continueLine(out),
      exitCode: 1,
    };
  }
  if (end.status === 'interrupted') {
    return {
      text: `\n${runSummaryLine('interrupted; saved', out, step, steps, wallSeconds, history)}\n${continueLine(out)}`,
      exitCode: 128 + constants.signals[end.signal],
    };
  }
  return { text: `\n${runSummaryLine('done', out, step, steps, wallSeconds, history)}\n`, exitCode: 0 };
}

function continueLine(out: string): string {
  return `continue it with: npm run train -- --resume ${out}\n`;
}
