/**
 * The code-use figures of the shown run against step, as ReTool and ZeroTIR report them (see
 * src/core/metrics/codeUse.ts), and the right tool answers left unclaimed (unclaimedAnswers.ts):
 * the shares in [0, 1] on one chart, the two counts on another.
 * A share with nothing to count at a step (no tool-using answer) is a gap, not a zero.
 */
import { useMemo } from 'react';
import type uPlot from 'uplot';
import { selectedRun, type LabState } from '../state/labStore';
import type { MetricColumns } from '../state/runColumns';
import { runVersion } from './runCharts';
import { lineSeries, PALETTE, stepChartOptions, UPlotChart, type YRange } from './UPlotChart';

type CodeUseColumn = 'codeRatio' | 'codePassRate' | 'singleCallShare' | 'invocationPosition' | 'unclaimedToolAnswerShare' | 'codeLines' | 'selfCorrections';

interface CodeUseSeries {
  column: CodeUseColumn;
  label: string;
  colour: string;
}

const SHARES: CodeUseSeries[] = [
  { column: 'codeRatio', label: 'answers with code', colour: PALETTE.green },
  { column: 'codePassRate', label: 'last call ran', colour: PALETTE.blue },
  { column: 'singleCallShare', label: 'correct with one call', colour: PALETTE.orange },
  { column: 'invocationPosition', label: 'first call at (fraction)', colour: PALETTE.purple },
  // Why code use takes off when it does: Python printed the right number, the answer did not claim it.
  { column: 'unclaimedToolAnswerShare', label: 'right tool answer unclaimed', colour: PALETTE.pink },
];
const COUNTS: CodeUseSeries[] = [
  { column: 'codeLines', label: 'code lines per answer', colour: PALETTE.teal },
  { column: 'selfCorrections', label: 'self-corrections per step', colour: PALETTE.red },
];

function CodeUseChart({ testId, title, series, range, yLabel }: { testId: string; title: string; series: CodeUseSeries[]; range: YRange; yLabel: string }) {
  const options = useMemo(() => stepChartOptions(series.map((s) => lineSeries(s.label, s.colour)), { range, label: yLabel }), [series, range, yLabel]);
  const data = useMemo(
    () =>
      (state: LabState): uPlot.AlignedData => {
        const columns: MetricColumns | undefined = selectedRun(state)?.columns;
        return columns ? [columns.step, ...series.map((s) => columns[s.column])] : [[], ...series.map(() => [])];
      },
    [series],
  );
  return <UPlotChart testId={testId} title={title} options={options} data={data} version={runVersion} />;
}

const UNIT: [number, number] = [0, 1];

export function CodeUseSharesChart() {
  return <CodeUseChart testId="chart-code-use" title="Code use (shares)" series={SHARES} range={UNIT} yLabel="share" />;
}

export function CodeLinesChart() {
  return <CodeUseChart testId="chart-code-lines" title="Code lines and self-corrections" series={COUNTS} range="fromZero" yLabel="count" />;
}
