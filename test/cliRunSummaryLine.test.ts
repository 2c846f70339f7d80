/** The line npm run train ends with: the run's directory, its steps, wall time and figures, computed by hand here. */
import { describe, expect, it } from 'vitest';
import { runSummaryLine } from '../src/cli/runSummaryLine';
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

  it('says so when no held-out test was run', () => {
    expect(runSummaryLine('interrupted; saved', 'r', 1, 5, 3, [metricsAt(1, { accuracy: 1 })])).toMatch(/^interrupted; saved: r, step 1\/5 in 3s; no held-out test; last 10 steps: accuracy 1\.00, code calls /);
  });
});
