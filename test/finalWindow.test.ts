/**
 * One definition of "final" (issue 14: it meant the last 10 steps in one table and the last 5 in
 * another): FINAL_WINDOW (core/metrics/runSummary.ts). The numbers: every final figure of the
 * summary, the compare tables (core and CLI) and the CLI's last line is the mean of the last
 * FINAL_WINDOW steps of one history. The labels: every file with a final-figures table or label
 * takes the window from the constant, and no source names a window of its own in words or digits.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownReport } from '../src/cli/compare';
import { runSummaryLine } from '../src/cli/runSummaryLine';
import { compareRuns, finalMean, runFigures } from '../src/core/metrics/runComparison';
import { FINAL_WINDOW, START_WINDOW, summariseRun } from '../src/core/metrics/runSummary';
import { emptyStepMetrics, type StepMetrics } from '../src/core/metrics/stepMetrics';

const ROOT = join(__dirname, '..');
const STEPS = 25;

/** Step 0 (a held-out test only), then steps 1-25 whose figures grow with the step, so each window has its own mean. */
const history: StepMetrics[] = [
  { ...emptyStepMetrics(0), testAccuracy: 0.1 },
  ...Array.from({ length: STEPS }, (_, i) => {
    const step = i + 1;
    return { ...emptyStepMetrics(step), accuracy: step / 50, codeCallFrequency: step / 50, responseLength: step, singleCallShare: step / 50, codePassRate: step / 50, selfCorrectionShare: step / 50 };
  }),
];

/** Mean of step / 50 over the last (or first) `window` steps. */
const lastMean = (window: number) => (STEPS - (window - 1) / 2) / 50;
const firstMean = (window: number) => (window + 1) / 2 / 50;

describe('"final" is the mean of the last FINAL_WINDOW steps everywhere', () => {
  it('is the last 10 steps, as the labels say', () => {
    expect(FINAL_WINDOW).toBe(10);
    // The windows are told apart by this history: the last 5 steps would give 0.46, the last 10 0.41.
    expect(lastMean(5)).toBeCloseTo(0.46, 12);
    expect(lastMean(FINAL_WINDOW)).toBeCloseTo(0.41, 12);
  });

  it('summary.json, the compare rows and the target, the CLI table and last line all use it', () => {
    const final = lastMean(FINAL_WINDOW);
    const summary = summariseRun(history).metrics;
    expect(summary.accuracy.last10).toBeCloseTo(final, 12);
    expect(summary.accuracy.first10).toBeCloseTo(firstMean(FINAL_WINDOW), 12);
    expect(summary.responseLength.last10).toBeCloseTo(final * 50, 12);
    // The start policy's self-correction share beside the final one: steps 1-3 (step 0 measured none), and the last FINAL_WINDOW.
    expect(START_WINDOW).toBe(3);
    expect(summariseRun(history).selfCorrectionShare).toEqual({ start: firstMean(START_WINDOW), startWindow: START_WINDOW, final: expect.closeTo(final, 12), finalWindow: FINAL_WINDOW });

    expect(finalMean(history, 'codeCallFrequency')).toBeCloseTo(final, 12);
    const row = runFigures(history, null);
    for (const figure of [row.finalCodeCallFrequency, row.accuracyLast10, row.finalSingleCallShare, row.finalCodePassRate, row.finalSelfCorrectionShare]) expect(figure).toBeCloseTo(final, 12);
    expect(row.selfCorrectionShareStart).toBeCloseTo(firstMean(START_WINDOW), 12);
    expect(row.finalResponseLength).toBeCloseTo(final * 50, 12);
    expect(row.accuracyFirst10).toBeCloseTo(firstMean(FINAL_WINDOW), 12);

    const comparison = compareRuns([{ name: 'a', config: { seed: 1 }, metrics: history }]);
    expect(comparison.target).toBeCloseTo(final, 12);
    const report = markdownReport(comparison, null);
    expect(report).toContain(`Final = mean of the last ${FINAL_WINDOW} measured steps`);
    // steps, code freq (final), reaches its own final at step 21, tests 0.1, acc first / final, rho, single-call share, pass rate, length,
    // self-correction share at the start and final: all finals over the window.
    expect(report).toContain(
      `| a | same config | 1 | ${STEPS} | ${final.toFixed(3)} | 21 | 0.100 | 0.100 | ${firstMean(FINAL_WINDOW).toFixed(3)} | ${final.toFixed(3)} | 1.000 | ${final.toFixed(3)} | ${final.toFixed(3)} | ${(final * 50).toFixed(1)} | ${firstMean(START_WINDOW).toFixed(3)} | ${final.toFixed(3)} |`,
    );

    expect(runSummaryLine('done', 'runs/x', STEPS, STEPS, 1, history)).toContain(`last ${FINAL_WINDOW} steps: accuracy ${final.toFixed(2)}, code calls ${final.toFixed(2)}, length ${(final * 50).toFixed(0)} tokens`);
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

describe('the labels', () => {
  it('every table or line of final figures takes its window from FINAL_WINDOW', () => {
    for (const file of ['src/ui/panels/ComparePanel.tsx', 'src/ui/panels/SweepPanel.tsx', 'src/cli/compare.ts', 'src/cli/runSummaryLine.ts']) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      expect(text, file).toMatch(/import \{[^}]*\bFINAL_WINDOW\b[^}]*\} from '[./]+\/core\/metrics\/runSummary'/);
      expect(text, `${file} shows the window`).toMatch(/(last|first) (\$\{|\{)FINAL_WINDOW\}/);
    }
  });

  it('the start self-correction share takes its window from START_WINDOW where it is shown', () => {
    for (const file of ['src/ui/panels/ComparePanel.tsx', 'src/cli/compare.ts']) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      expect(text, file).toMatch(/import \{[^}]*\bSTART_WINDOW\b[^}]*\} from '[./]+\/core\/metrics\/runSummary'/);
      expect(text, `${file} shows the window`).toMatch(/first (\$\{|\{)START_WINDOW\}/);
    }
  });

  it('no source of the page, the CLI or the metrics names a window of its own ("last 5", "first ten")', () => {
    const own = /\b(last|first)[ -](\d+|two|three|four|five|six|seven|eight|nine|ten|twenty)\b/i;
    const offenders = ['src/ui', 'src/cli', 'src/core/metrics'].flatMap(sourceFiles).flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .map((line, i) => `${file}:${i + 1}: ${line.trim()}`)
        .filter((line) => own.test(line.slice(line.indexOf(': ') + 2))),
    );
    expect(offenders).toEqual([]);
  });
});
