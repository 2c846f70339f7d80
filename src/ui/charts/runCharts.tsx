/**
 * The live plots of the shown run, each against step: accuracy (batch and held-out test), code-call
 * frequency, response length (all tokens and policy tokens), calls per response, step-time split.
 * A click on any of them picks the nearest step, whose kept answers the answers panel then shows,
 * and every one of them marks that step (linked views).
 */
import { useMemo } from 'react';
import type uPlot from 'uplot';
import { useLab } from '../LabContext';
import { pickedStepOf, pickStep, selectedRun, type LabState } from '../state/labStore';
import { nearestStep } from './nearestStep';
import type { MetricColumns } from '../state/runColumns';
import { lineSeries, PALETTE, stepChartOptions, UPlotChart, type YRange } from './UPlotChart';

type ColumnName = Exclude<keyof MetricColumns, 'step'>;

interface SeriesSpec {
  column: ColumnName;
  label: string;
  colour: string;
  /** Measured only every few steps: join the points and mark them. */
  sparse?: boolean;
}

/** Changes when the shown run's columns change (in place: runColumns.ts) or another run is shown. */
export function runVersion(state: LabState): string {
  const run = selectedRun(state);
  return run ? `${run.id}:${run.columns.revision}` : 'none';
}

function columnsData(specs: SeriesSpec[]) {
  return (state: LabState): uPlot.AlignedData => {
    const columns = selectedRun(state)?.columns;
    if (!columns) return [[], ...specs.map(() => [])];
    return [columns.step, ...specs.map((s) => columns[s.column])];
  };
}

function RunLineChart(props: { testId: string; title: string; specs: SeriesSpec[]; range?: YRange; yLabel?: string }) {
  const { specs, range, yLabel } = props;
  const options = useMemo(
    () =>
      stepChartOptions(
        specs.map((s) => lineSeries(s.label, s.colour, s.sparse ? { spanGaps: true, points: { show: true, size: 6 } } : {})),
        { range, label: yLabel },
      ),
    [specs, range, yLabel],
  );
  const data = useMemo(() => columnsData(specs), [specs]);
  const { store } = useLab();
  const pickNearestStep = (x: number) => {
    const step = nearestStep(selectedRun(store.getState())?.columns.step ?? [], x);
    if (step !== null) pickStep(store, step);
  };
  return (
    <UPlotChart testId={props.testId} title={props.title} options={options} data={data} version={runVersion} onPickX={pickNearestStep} markX={pickedStepOf} />
  );
}

const UNIT: [number, number] = [0, 1];
const ACCURACY: SeriesSpec[] = [
  { column: 'accuracy', label: 'batch accuracy', colour: PALETTE.blue },
  { column: 'testAccuracy', label: 'held-out test', colour: PALETTE.orange, sparse: true },
];
const CODE_CALLS: SeriesSpec[] = [
  { column: 'codeCallFrequency', label: 'answers using code', colour: PALETTE.green },
  { column: 'codeErrorRate', label: 'calls that failed', colour: PALETTE.red },
];
const LENGTH: SeriesSpec[] = [
  { column: 'responseLength', label: 'all tokens', colour: PALETTE.purple },
  { column: 'policyTokens', label: 'policy tokens', colour: PALETTE.teal },
];
const CALLS: SeriesSpec[] = [{ column: 'callsPerResponse', label: 'calls per answer', colour: PALETTE.green }];
const STEP_TIME: SeriesSpec[] = [
  { column: 'generateSeconds', label: 'generate', colour: PALETTE.blue },
  { column: 'executeSeconds', label: 'execute', colour: PALETTE.orange },
  { column: 'updateSeconds', label: 'update', colour: PALETTE.purple },
];

export function AccuracyChart() {
  return <RunLineChart testId="chart-accuracy" title="Answers right (accuracy)" specs={ACCURACY} range={UNIT} yLabel="share right" />;
}

export function CodeCallsChart() {
  return <RunLineChart testId="chart-code-calls" title="Uses code (code-call frequency)" specs={CODE_CALLS} range={UNIT} yLabel="share of answers" />;
}

export function ResponseLengthChart() {
  return <RunLineChart testId="chart-response-length" title="Answer length (response length)" specs={LENGTH} range="fromZero" yLabel="tokens per answer" />;
}

export function CallsPerResponseChart() {
  return <RunLineChart testId="chart-calls-per-response" title="Calls per answer (mean)" specs={CALLS} range="fromZero" yLabel="calls" />;
}

export function StepTimeChart() {
  return <RunLineChart testId="chart-step-time" title="Step time (seconds)" specs={STEP_TIME} range="fromZero" yLabel="s" />;
}
