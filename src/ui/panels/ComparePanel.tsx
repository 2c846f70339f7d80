/**
 * Runs in one view (ZeroTIR start vs ReTool cold start, PPO vs Reinforce++, Nmax against Nmax):
 * tick two or more in the run list to see their curves overlaid, each run in its own colour (the
 * one it has in the sweep too; identical runs dashed so both show), and the
 * comparison table per run and per arm (runs that differ only in the seed), with the first step
 * each run's code-call frequency reached the reference run's final one.
 */
import { useMemo, useState } from 'react';
import type { ArmRow, RunComparison, RunRow } from '../../core/metrics/runComparison';
import type { EvalMatrix } from '../../core/metrics/evalMatrix';
import { FINAL_WINDOW, START_WINDOW } from '../../core/metrics/runSummary';
import { useLabShallow } from '../LabContext';
import { compareData, compareVersion, labComparison, labEvalMatrix, type CompareMetric } from '../charts/compareOverlay';
import { coloursOf } from '../charts/runColours';
import { overlaySeries, withDashedMarkers } from '../charts/sweepOverlay';
import { stepChartOptions, UPlotChart } from '../charts/UPlotChart';
import { identicalRunGroups } from '../controller/identicalRuns';
import { comparedRuns } from '../state/labStore';

const METRICS: [CompareMetric, string][] = [
  ['codeCallFrequency', 'code-call frequency'],
  ['accuracy', 'batch accuracy'],
  ['testAccuracy', 'held-out accuracy'],
  ['responseLength', 'response length'],
  ['callsPerResponse', 'calls per answer'],
  ['codePassRate', 'last call ran'],
  ['singleCallShare', 'correct with one call'],
];
const UNIT_METRICS = new Set<CompareMetric>(['codeCallFrequency', 'accuracy', 'testAccuracy', 'codePassRate', 'singleCallShare']);

function fmt(x: number | null, digits = 2): string {
  return x === null || !Number.isFinite(x) ? '–' : x.toFixed(digits);
}

function steps(x: number | null): string {
  return x === null ? '–' : Number.isInteger(x) ? String(x) : x.toFixed(1);
}

export function ComparePanel() {
  const runs = useLabShallow(comparedRuns);
  const colours = useLabShallow((s) => coloursOf(s, comparedRuns(s).map((r) => r.id)));
  const lines = { names: runs.map((r) => r.name), colours, groups: identicalRunGroups(runs) };
  const [referenceId, setReferenceId] = useState<string | null>(null);
  const comparison = runs.length >= 2 ? labComparison(runs, referenceId) : null;
  const matrix = runs.length >= 2 ? labEvalMatrix(runs) : null;

  return (
    <section className="panel compare" aria-labelledby="compare-title" data-testid="compare-panel">
      <h2 id="compare-title">Compare runs</h2>
      {comparison === null ? (
        <p className="hint" data-testid="compare-hint">
          Tick two or more runs in the run list to overlay their curves and compare them in a table.
        </p>
      ) : (
        <>
          <div className="compare-charts">
            <CompareChart initial="codeCallFrequency" lines={lines} testId="chart-compare-code" />
            <CompareChart initial="accuracy" lines={lines} testId="chart-compare-accuracy" />
            <CompareChart initial="responseLength" lines={lines} testId="chart-compare-length" />
          </div>
          <div className="field compare-reference">
            <label htmlFor="compare-reference">Reference run</label>
            <select
              id="compare-reference"
              data-testid="compare-reference"
              value={runs.some((r) => r.id === referenceId) ? referenceId! : runs[0].id}
              onChange={(e) => setReferenceId(e.target.value)}
            >
              {runs.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name}
                </option>
              ))}
            </select>
          </div>
          <CompareTables comparison={comparison} matrix={matrix} />
        </>
      )}
    </section>
  );
}

/** The ticked runs' lines: names, colours (runColours.ts) and which runs are identical (identicalRuns.ts). */
interface CompareLines {
  names: string[];
  colours: string[];
  groups: number[][];
}

/** One overlay chart with a metric picker; rebuilt when the runs' lines or the metric change, fed as they step. */
function CompareChart({ initial, lines, testId }: { initial: CompareMetric; lines: CompareLines; testId: string }) {
  const [metric, setMetric] = useState<CompareMetric>(initial);
  const linesKey = JSON.stringify(lines);
  const chart = useMemo(
    () => ({
      options: withDashedMarkers(
        stepChartOptions(
          overlaySeries(lines.names, lines.colours, lines.groups, metric === 'testAccuracy' ? { spanGaps: true, points: { show: true, size: 6 } } : { spanGaps: true }),
          UNIT_METRICS.has(metric) ? { range: [0, 1] } : { range: 'fromZero' },
        ),
      ),
      data: compareData(metric),
    }),
    // Keyed by the lines' text: new arrays with the same content keep the chart.
    [linesKey, metric],
  );
  return (
    <UPlotChart
      testId={testId}
      title={METRICS.find(([m]) => m === metric)?.[1] ?? metric}
      options={chart.options}
      data={chart.data}
      version={compareVersion}
      controls={
        <select value={metric} onChange={(e) => setMetric(e.target.value as CompareMetric)} aria-label="Metric">
          {METRICS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      }
    />
  );
}

// "final": the mean of the last FINAL_WINDOW measured steps, as everywhere (runSummary.ts).
const FIGURE_HEAD = [
  'steps',
  'uses code (final)',
  'reaches target at',
  'test (last test)',
  'test (best)',
  `accuracy (first ${FINAL_WINDOW} steps)`,
  'accuracy (final)',
  'ρ(step, acc)',
  'one call (final)',
  'last call ran (final)',
  'length (final)',
  `self-correcting (first ${START_WINDOW} steps)`,
  'self-correcting (final)',
];

/** The one-call column's tooltip: the final figures of each depth measured, or none. */
function depthTooltip(row: RunRow | ArmRow): string | undefined {
  const depths = row.finalCallsPerResponseByDepth.flatMap((calls, d) =>
    calls === null ? [] : [`depth ${d + 1}: ${fmt(calls, 1)} calls per answer, ${fmt(row.finalSingleCallShareByDepth[d])} of right ones with one call`],
  );
  return depths.length === 0 ? undefined : depths.join('\n');
}

function figureCells(row: RunRow | ArmRow, reached: string) {
  const cells = [
    steps(row.steps),
    fmt(row.finalCodeCallFrequency),
    reached,
    fmt(row.finalTestAccuracy),
    fmt(row.bestTestAccuracy),
    fmt(row.accuracyFirst10),
    fmt(row.accuracyLast10),
    fmt(row.accuracyRho),
    fmt(row.finalSingleCallShare),
    fmt(row.finalCodePassRate),
    fmt(row.finalResponseLength, 0),
    fmt(row.selfCorrectionShareStart),
    fmt(row.finalSelfCorrectionShare),
  ];
  const oneCall = FIGURE_HEAD.indexOf('one call (final)');
  return cells.map((cell, i) => (
    <td key={i} title={i === oneCall ? depthTooltip(row) : undefined}>
      {cell}
    </td>
  ));
}

function CompareTables({ comparison, matrix }: { comparison: RunComparison; matrix: EvalMatrix | null }) {
  const { runs, arms, differences, target, reference } = comparison;
  return (
    <div className="compare-tables">
      <p className="hint" data-testid="compare-summary">
        {differences.length === 0
          ? 'The runs differ only in the seed. '
          : `Compared: ${differences.map((d) => `${d.field} ${[...new Set(d.values)].join(' vs ')}`).join('; ')}. `}
        Target: {fmt(target)}, the final code-call frequency of {reference}. Final (last {FINAL_WINDOW} steps) = the mean of the last {FINAL_WINDOW} measured steps;
        self-correcting (first {START_WINDOW} steps) is the start policy’s share (step 1 is sampled before any update). Hover a one-call figure for it by depth.
      </p>
      <table data-testid="compare-table">
        <caption>Per run</caption>
        <thead>
          <tr>
            <th>run</th>
            <th>arm</th>
            {FIGURE_HEAD.map((h) => (
              <th key={h}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {runs.map((row, i) => (
            <tr key={i} data-testid="compare-row">
              <th>{row.name}</th>
              <td>{arms[row.arm].label}</td>
              {figureCells(row, steps(row.reachesTargetAt))}
            </tr>
          ))}
        </tbody>
      </table>
      <table data-testid="compare-arms">
        <caption>Per arm (means over seeds)</caption>
        <thead>
          <tr>
            <th>arm</th>
            <th>n</th>
            {FIGURE_HEAD.map((h) => (
              <th key={h}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {arms.map((arm, i) => (
            <tr key={i} data-testid="compare-arm-row">
              <th>{arm.label}</th>
              <td>{arm.n}</td>
              {figureCells(arm, `${steps(arm.reachesTargetAt)} (${arm.reachedTarget}/${arm.n})`)}
            </tr>
          ))}
        </tbody>
      </table>
      {matrix && (
        <table className="matrix" data-testid="compare-matrix">
          <caption>Held-out accuracy (pass@1 or greedy, as each row says): train Nmax (rows) × eval Nmax (columns)</caption>
          <thead>
            <tr>
              <th>run</th>
              <th>train Nmax</th>
              <th>seed</th>
              {matrix.evalNmax.map((n) => (
                <th key={n}>{n}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {matrix.rows.map((row, i) => (
              <tr key={i}>
                <th>{row.label}</th>
                <td>{row.trainNmax ?? '–'}</td>
                <td>{row.seed ?? '?'}</td>
                {row.passAtOne.map((p, j) => (
                  <td key={j} className={matrix.evalNmax[j] === row.trainNmax ? 'diagonal' : undefined}>
                    {fmt(p)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
