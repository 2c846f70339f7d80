/** The scaling-law view: a metric against step on log-log axes, with its least-squares line and statistics. */
import { useMemo, useState } from 'react';
import type uPlot from 'uplot';
import type { ScalarMetric } from '../../core/metrics/stepMetrics';
import { selectedRun, type LabState } from '../state/labStore';
import { runVersion } from './runCharts';
import { logLogCaption, logLogView } from './logLogView';
import { lineSeries, PALETTE, UPlotChart } from './UPlotChart';

const METRICS: [ScalarMetric, string][] = [
  ['accuracy', 'batch accuracy'],
  ['testAccuracy', 'held-out accuracy'],
  ['codeCallFrequency', 'code-call frequency'],
  ['callsPerResponse', 'calls per answer'],
  ['responseLength', 'response length'],
];

export function LogLogChart() {
  const [metric, setMetric] = useState<ScalarMetric>('accuracy');
  const view = useMemo(() => {
    const compute = (state: LabState) => {
      const columns = selectedRun(state)?.columns;
      return columns ? logLogView(columns.step, columns[metric]) : logLogView([], []);
    };
    const label = METRICS.find(([m]) => m === metric)?.[1] ?? metric;
    const options: Omit<uPlot.Options, 'width' | 'height'> = {
      scales: { x: { time: false, distr: 3 }, y: { distr: 3 } },
      axes: [{ label: 'step (log)' }, { label: `${label} (log)`, size: 60 }],
      series: [
        { label: 'step' },
        lineSeries(label, PALETTE.blue, { width: 0, points: { show: true, size: 5, fill: PALETTE.blue } }),
        lineSeries('least-squares fit', PALETTE.red, { dash: [6, 4] }),
      ],
    };
    return {
      options,
      data: (state: LabState): uPlot.AlignedData => {
        const v = compute(state);
        return [v.steps, v.values, v.fitted.length > 0 ? v.fitted : v.steps.map(() => null)];
      },
      annotation: (state: LabState) => logLogCaption(compute(state)),
    };
  }, [metric]);
  return (
    <UPlotChart
      testId="chart-loglog"
      title="Scaling law (log-log)"
      options={view.options}
      data={view.data}
      version={runVersion}
      annotation={view.annotation}
      controls={
        <select value={metric} onChange={(e) => setMetric(e.target.value as ScalarMetric)} data-testid="loglog-metric" aria-label="Metric">
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
