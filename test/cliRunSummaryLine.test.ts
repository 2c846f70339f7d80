/** What npm run train ends with: the run's directory, its steps, wall time and figures, computed by hand here, and the exit code. */
import { describe, expect, it } from 'vitest';
import { runEndReport, runSummaryLine } from '../src/cli/runSummaryLine';
import { metricsAt } from './uiFixtures';

describe('runSummaryLine', () => {
  it('gives the held-out accuracy first to last and the last-10 means of accuracy, code calls and length', () => {
    const history = [
      metricsAt(0, { testAccuracy: 0.1 }),
      ...Array.from({ length: 12 }, (_, i) =>
        metricsAt(i + 1, { accuracy: i < 2 ? 0 : 0.5, codeCallFrequency: i < 2 ? 0 : 1, responseLength: i < 2 ? 10 : 40, testAccuracy: i === 11 ? 0.55 : null }),
      ),
    ];
    // Steps 3-12 are the last ten with an accuracy: 0.5, code calls 1, length 40.
    expect(runSummaryLine('done', 'runs/x', 12, 12, 75, history)).toBe(
      'done: runs/x, step 12/12 in 1m15s; held-out accuracy 0.10 -> 0.55; last 10 steps: accuracy 0.50, code calls 1.00, length 40 tokens (metrics.jsonl, samples.jsonl, summary.json, checkpoint/)',
    );
  });

  it('says when no held-out test ran after step 0, rather than "0.22 -> 0.22"', () => {
    const history = [metricsAt(0, { testAccuracy: 0.22 }), metricsAt(1, { accuracy: 0.5, codeCallFrequency: 1, responseLength: 20 }), metricsAt(2, { accuracy: 0.25, codeCallFrequency: 0, responseLength: 30 })];
    expect(runSummaryLine('done', 'r', 2, 2, 5, history)).toBe(
      'done: r, step 2/2 in 5s; held-out accuracy 0.22 at step 0, no held-out test after it; last 10 steps: accuracy 0.38, code calls 0.50, length 25 tokens (metrics.jsonl, samples.jsonl, summary.json, checkpoint/)',
    );
  });

  it('names the step of the last held-out test when it is not the last step', () => {
    const history = [metricsAt(0, { testAccuracy: 0.1 }), ...Array.from({ length: 12 }, (_, i) => metricsAt(i + 1, { testAccuracy: i + 1 === 10 ? 0.4 : null }))];
    expect(runSummaryLine('interrupted; saved', 'r', 12, 40, 5, history)).toMatch(/^interrupted; saved: r, step 12\/40 in 5s; held-out accuracy 0\.10 -> 0\.40 at step 10; last 10 steps: /);
  });

  it('says so when no held-out test was run', () => {
    expect(runSummaryLine('interrupted; saved', 'r', 1, 5, 3, [metricsAt(1, { accuracy: 1 })])).toMatch(/^interrupted; saved: r, step 1\/5 in 3s; no held-out test; last 10 steps: accuracy 1\.00, code calls /);
  });
});

describe('runEndReport', () => {
  const history = [metricsAt(1, { accuracy: 1 }), metricsAt(2, { accuracy: 0 })];

  it('exits 0 with the summary line when the run is done, 130 when it was interrupted and saved', () => {
    expect(runEndReport({ status: 'done' }, 'runs/x', 2, 2, 3, history)).toEqual({ text: `\n${runSummaryLine('done', 'runs/x', 2, 2, 3, history)}\n`, exitCode: 0 });
    const interrupted = runEndReport({ status: 'interrupted', signal: 'SIGINT' }, 'runs/x', 2, 5, 3, history);
    expect(interrupted.exitCode).toBe(130);
    expect(interrupted.text).toMatch(/^\ninterrupted; saved: runs\/x, step 2\/5 /);
  });

  it('ends an interrupted run with the command that continues it, and exits 128 + the signal number', () => {
    for (const [signal, exitCode] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
      const report = runEndReport({ status: 'interrupted', signal }, 'runs/x', 2, 5, 3, history);
      expect(report.exitCode).toBe(exitCode);
      expect(report.text.split('\n')).toEqual(['', runSummaryLine('interrupted; saved', 'runs/x', 2, 5, 3, history), 'continue it with: npm run train -- --resume runs/x', '']);
    }
  });

  it('exits 1 when a step failed, naming the failed step, the step saved and the command that continues the run', () => {
    const report = runEndReport({ status: 'failed', error: new Error('the interpreter did not start') }, 'runs/x', 2, 5, 3, history);
    expect(report.exitCode).toBe(1);
    expect(report.text.split('\n')).toEqual([
      '',
      'train: step 3 failed: Error: the interpreter did not start',
      runSummaryLine('failed; saved at step 2', 'runs/x', 2, 5, 3, history),
      'continue it with: npm run train -- --resume runs/x',
      '',
    ]);
  });
});
