/**
 * The Nmax ablation (ZeroTIR's budget-alignment study in miniature): queue one run per Nmax with the
 * same seed and budget, overlay their curves, tabulate their final figures, and fill the
 * train-Nmax by eval-Nmax matrix by evaluating each finished run at every inference budget. Under
 * the chart, one line says which gains are beyond noise, and which arms trained identical runs.
 */
import { useEffect, useMemo, useState } from 'react';
import type uPlot from 'uplot';
import { nmaxListError } from '../../core/experiment';
import { FINAL_WINDOW, summariseRun } from '../../core/metrics/runSummary';
import { useLab, useLabShallow, useLabState } from '../LabContext';
import { coloursOf } from '../charts/runColours';
import { overlayColumns, overlaySeries, withDashedMarkers } from '../charts/sweepOverlay';
import { stepChartOptions, UPlotChart } from '../charts/UPlotChart';
import { identicalRunGroups } from '../controller/identicalRuns';
import { conclusionLine, identicalArmsNote, sweepFigures } from '../controller/sweepConclusion';
import type { LabRun } from '../state/labRun';
import type { LabState } from '../state/labStore';
import { typedNumbers } from '../state/typedNumber';
import { lastValue, metricsRows, type MetricColumns } from '../state/runColumns';
import { ProgressBar } from './Progress';

type OverlayMetric = Exclude<keyof MetricColumns, 'step'>;
// Held-out first and by default: a step's batch accuracy moves with the prompts it drew.
const OVERLAY_METRICS: [OverlayMetric, string][] = [
  ['testAccuracy', 'held-out accuracy'],
  ['accuracy', 'batch accuracy'],
  ['codeCallFrequency', 'code-call frequency'],
  ['callsPerResponse', 'calls per answer'],
  ['responseLength', 'response length'],
];

function sweepRuns(state: LabState): LabRun[] {
  const ids = state.sweep?.runIds ?? [];
  return ids.map((id) => state.runs[id]).filter((r): r is LabRun => r !== undefined);
}

function fmt(x: number | null | undefined, digits = 2): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits);
}

export function SweepPanel() {
  const { store, controller } = useLab();
  const sweep = useLabState((s) => s.sweep);
  const sweepNmax = useLabState((s) => s.sweepNmax);
  const busy = useLabState((s) => s.busy);
  const ready = useLabState((s) => s.worker === 'ready');
  const progress = useLabState((s) => s.progress.sweep);
  const evaluating = useLabState((s) => s.progress.evaluate);
  const runs = useLabShallow(sweepRuns);
  const [draft, setDraft] = useState(sweepNmax.join(', '));
  const storedValues = sweepNmax.join(', ');
  // A preset or a link that sets the values (the ablation's 0, 1, 2, 4, 8) shows them; typing keeps its own spacing.
  useEffect(() => setDraft((d) => (typedNumbers(d).join(', ') === storedValues ? d : storedValues)), [storedValues]);
  const [metric, setMetric] = useState<OverlayMetric>('testAccuracy');
  const draftValues = typedNumbers(draft);
  const draftError = nmaxListError(draftValues);
  const draftValid = draftError === null;
  const training = runs.some((r) => r.status === 'training');
  const evalNmax = sweep?.nmaxValues ?? sweepNmax;

  const colours = useLabShallow((s) => coloursOf(s, sweepRuns(s).map((r) => r.id)));
  const groups = identicalRunGroups(runs);
  const nmax = runs.map((r) => r.config.nmax);
  const identicalNote = identicalArmsNote(nmax, groups);

  const seriesKey = JSON.stringify([nmax, colours, groups]);
  // Rebuilt when the runs, their colours, which are identical or the metric change, not when the runs step.
  const chart = useMemo(() => {
    // Held-out accuracy is measured every testEvery steps: points, so a lone measurement shows.
    const extra = metric === 'testAccuracy' ? { spanGaps: true, points: { show: true, size: 6 } } : { spanGaps: true };
    return {
      options: withDashedMarkers(
        stepChartOptions(
          overlaySeries(nmax.map((n) => `Nmax ${n}`), colours, groups, extra),
          metric === 'accuracy' || metric === 'testAccuracy' || metric === 'codeCallFrequency' ? { range: [0, 1] } : { range: 'fromZero' },
        ),
      ),
      data: (state: LabState): uPlot.AlignedData => overlayColumns(sweepRuns(state), metric),
      version: (state: LabState) => sweepRuns(state).map((r) => `${r.id}:${r.revision}`).join(','),
    };
  }, [seriesKey, metric]);

  return (
    <section className="panel sweep" aria-labelledby="sweep-title" data-testid="sweep-panel">
      <h2 id="sweep-title">Nmax sweep</h2>
      <div className="sweep-controls">
        <div className={`field${draftValid ? '' : ' field-invalid'}`}>
          <label htmlFor="sweep-values">Nmax values</label>
          <input
            id="sweep-values"
            data-testid="sweep-values"
            value={draft}
            onChange={(e) => {
              setDraft(e.target.value);
              const values = typedNumbers(e.target.value);
              if (nmaxListError(values) === null) store.setState({ sweepNmax: values });
            }}
          />
          {draftError && (
            <span className="field-error" data-testid="sweep-values-error">
              {draftError}, separated by commas
            </span>
          )}
        </div>
        <button type="button" className="primary" data-testid="sweep-start" disabled={!ready || !draftValid || busy !== null || training} onClick={() => void controller.startSweep()}>
          Queue sweep
        </button>
        {sweep && !sweep.running && sweep.position < sweep.runIds.length && (
          <button type="button" data-testid="sweep-resume" disabled={!ready || busy !== null || training} onClick={() => void controller.resumeSweep()}>
            Resume sweep
          </button>
        )}
        <p className="hint">One run per value, the knobs otherwise as set (same seed and step budget); each finished run is evaluated at every value.</p>
        <p className="sweep-explainer" data-testid="sweep-explainer">
          What to look for, as in ZeroTIR's ablation: a tool call lifts accuracy (Nmax 0 to 1); more calls can lift it further where a
          question takes several steps or a failed program gets fixed, by less and less; a run trained with more calls may gain more from a
          larger budget at evaluation (the matrix). In ZeroTIR most correct answers still use a single call; here the multi-step questions
          and the chains need more, so read the single-call share by depth.
        </p>
      </div>
      {progress && <ProgressBar label="Sweep" {...progress} testId="sweep-progress" />}
      {evaluating && evaluating.done < evaluating.total && <ProgressBar label="Evaluating" {...evaluating} />}
      {runs.length > 0 && (
        <>
          <UPlotChart
            testId="chart-sweep"
            title="Sweep runs overlaid"
            options={chart.options}
            data={chart.data}
            version={chart.version}
            controls={
              <select value={metric} onChange={(e) => setMetric(e.target.value as OverlayMetric)} aria-label="Metric">
                {OVERLAY_METRICS.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            }
          />
          {identicalNote && (
            <p className="sweep-identical" data-testid="sweep-identical">
              {identicalNote}
            </p>
          )}
          <p className="sweep-conclusion" data-testid="sweep-conclusion">
            {conclusionLine(sweepFigures(runs))}
          </p>
          <SweepTables runs={runs} evalNmax={evalNmax} onEvaluate={(id) => void controller.evaluateRun(id)} disabled={!ready || busy !== null || training} />
        </>
      )}
    </section>
  );
}

function SweepTables({ runs, evalNmax, onEvaluate, disabled }: { runs: LabRun[]; evalNmax: number[]; onEvaluate: (id: string) => void; disabled: boolean }) {
  return (
    <div className="sweep-tables">
      <table data-testid="sweep-table">
        <caption>
          Final (last {FINAL_WINDOW} steps): each figure's mean over its last {FINAL_WINDOW} measured steps; test: the last evaluation
        </caption>
        <thead>
          <tr>
            <th>train Nmax</th>
            <th>steps</th>
            <th>accuracy</th>
            <th>test</th>
            <th>uses code</th>
            <th>calls/answer</th>
            <th>length</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => {
            const summary = summariseRun(metricsRows(run.columns)).metrics;
            return (
              <tr key={run.id}>
                <th>{run.config.nmax}</th>
                <td>
                  {run.step}/{run.config.steps}
                </td>
                <td>{fmt(summary.accuracy.last10)}</td>
                <td>{fmt(lastValue(run.columns.testAccuracy))}</td>
                <td>{fmt(summary.codeCallFrequency.last10)}</td>
                <td>{fmt(summary.callsPerResponse.last10)}</td>
                <td>{fmt(summary.responseLength.last10, 0)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <table className="matrix" data-testid="sweep-matrix">
        <caption>Held-out greedy accuracy: train Nmax (rows) × eval Nmax (columns)</caption>
        <thead>
          <tr>
            <th>train \ eval</th>
            {evalNmax.map((n) => (
              <th key={n}>{n}</th>
            ))}
            <th />
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id}>
              <th>{run.config.nmax}</th>
              {evalNmax.map((n) => {
                const accuracy = run.evaluation?.[n];
                return (
                  <td key={n} className={n === run.config.nmax ? 'diagonal' : undefined} style={accuracy === undefined ? undefined : { background: `rgba(37, 99, 235, ${0.08 + 0.5 * accuracy})` }}>
                    {fmt(accuracy)}
                  </td>
                );
              })}
              <td>
                {!run.evaluation && run.status === 'finished' && (
                  <button type="button" className="small" disabled={disabled} onClick={() => onEvaluate(run.id)}>
                    evaluate
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
