/**
 * One uPlot chart fed from the store. The chart is created once (options change rarely); data
 * changes are noticed by a cheap `version` of the state and applied with setData at most once per
 * animation frame, outside React's render, so a thousand steps cost a thousand appends, not a
 * thousand re-created charts.
 */
import { useEffect, useMemo, useRef, type ReactNode } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useLab, useLabState } from '../LabContext';
import type { LabState } from '../state/labStore';
import { formatLegendValue, latestValue } from './legendValue';

export interface UPlotChartProps {
  testId: string;
  title: string;
  /** uPlot options without size; keep the object stable (useMemo) or the chart is rebuilt. */
  options: Omit<uPlot.Options, 'width' | 'height'>;
  /** The data to show now: [x, ...series], one array per series. */
  data: (state: LabState) => uPlot.AlignedData;
  /** Changes whenever `data` would (a run id and its revision, typically). */
  version: (state: LabState) => unknown;
  height?: number;
  /** Text printed over the plot area (statistics), recomputed with the data. */
  annotation?: (state: LabState) => string;
  /** Controls shown beside the title (a metric picker). */
  controls?: ReactNode;
  /** A click on the plot (not a zoom drag) at this x value. */
  onPickX?: (x: number) => void;
  /** An x value to mark with a vertical line (a picked step), or null. */
  markX?: (state: LabState) => number | null;
}

/** How far the pointer may move between press and release for a click, not a zoom drag (px). */
const CLICK_SLOP_PX = 4;

/** `height`: the plot's, the same in presenter mode, whose larger type must not push the newest answer further down a 1280x720 screen (e2e/classroomScreen.spec.ts). */
export function UPlotChart({ testId, title, options, data, version, height = 190, annotation, controls, onPickX, markX }: UPlotChartProps) {
  const { store } = useLab();
  const presenter = useLabState((s) => s.presenter);
  const plotOptions = useMemo(() => withLatestInLegend(presenter ? withLargeType(options) : options), [options, presenter]);
  const holder = useRef<HTMLDivElement>(null);
  const note = useRef<HTMLDivElement>(null);
  // The latest callbacks, so the subscription below does not need rebuilding when they change identity.
  const feed = useRef({ data, version, annotation, onPickX, markX });
  feed.current = { data, version, annotation, onPickX, markX };
  const marked = useLabState((state) => markX?.(state) ?? null);
  const pickable = onPickX !== undefined;

  useEffect(() => {
    const element = holder.current;
    if (!element) return;
    const markOf = (state: LabState) => feed.current.markX?.(state) ?? null;
    const drawMark = (u: uPlot) => {
      const x = markOf(store.getState());
      if (x !== null) drawVerticalLine(u, x);
    };
    const hooks = { ...plotOptions.hooks, draw: [...(plotOptions.hooks?.draw ?? []), drawMark] };
    const chart = new uPlot({ ...plotOptions, hooks, width: Math.max(element.clientWidth, 200), height: height }, feed.current.data(store.getState()), element);
    let frame = 0;
    let shown = feed.current.version(store.getState());
    let shownMark = markOf(store.getState());
    const draw = () => {
      frame = 0;
      const state = store.getState();
      chart.setData(feed.current.data(state));
      // Recompute the legend's values: away from the cursor they are each series' latest point.
      chart.setLegend({});
      if (note.current && feed.current.annotation) note.current.textContent = feed.current.annotation(state);
    };
    draw();
    const unsubscribe = store.subscribe((state) => {
      const next = feed.current.version(state);
      const nextMark = markOf(state);
      if (next === shown && nextMark === shownMark) return;
      shown = next;
      shownMark = nextMark;
      if (frame === 0) frame = requestAnimationFrame(draw);
    });
    // A press and release in one place picks the x there; a press that moved is uPlot's zoom drag, not a pick.
    let pressedAt: number | null = null;
    const onPress = (event: PointerEvent) => (pressedAt = event.clientX);
    const onRelease = (event: PointerEvent) => {
      const still = pressedAt !== null && Math.abs(event.clientX - pressedAt) <= CLICK_SLOP_PX;
      pressedAt = null;
      if (!still) return;
      const left = event.clientX - chart.over.getBoundingClientRect().left;
      feed.current.onPickX?.(chart.posToVal(left, 'x'));
    };
    chart.over.addEventListener('pointerdown', onPress);
    chart.over.addEventListener('pointerup', onRelease);
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 200), height: height }));
    resize.observe(element);
    return () => {
      unsubscribe();
      chart.over.removeEventListener('pointerdown', onPress);
      chart.over.removeEventListener('pointerup', onRelease);
      resize.disconnect();
      if (frame !== 0) cancelAnimationFrame(frame);
      chart.destroy();
    };
  }, [store, plotOptions, height]);

  // uPlot draws the axis labels on the canvas; a screen reader (and a test) reads them here.
  const [xLabel, yLabel] = (options.axes ?? []).map((axis) => axis.label);
  return (
    <figure className={pickable ? 'chart chart-pickable' : 'chart'} data-testid={testId} data-marked-step={marked ?? undefined}>
      <figcaption>
        <span>{title}</span>
        {controls}
        {(xLabel || yLabel) && (
          <span className="visually-hidden" data-testid="chart-axes">
            {[xLabel && `x axis: ${xLabel}`, yLabel && `y axis: ${yLabel}`].filter(Boolean).join('; ')}
          </span>
        )}
      </figcaption>
      <div className="chart-plot">
        <div ref={holder} />
        {annotation && <div className="chart-annotation" ref={note} />}
      </div>
    </figure>
  );
}

/** A dashed vertical line across the plot at x (the picked step), drawn on uPlot's canvas. */
function drawVerticalLine(u: uPlot, x: number): void {
  const position = Math.round(u.valToPos(x, 'x', true));
  const { left, top, width, height } = u.bbox;
  // Zoomed away from the step: nothing to mark.
  if (position < left || position > left + width) return;
  const ctx = u.ctx;
  ctx.save();
  ctx.strokeStyle = '#1f2933';
  ctx.lineWidth = 1.5 * uPlot.pxRatio;
  ctx.setLineDash([5 * uPlot.pxRatio, 4 * uPlot.pxRatio]);
  ctx.beginPath();
  ctx.moveTo(position, top);
  ctx.lineTo(position, top + height);
  ctx.stroke();
  ctx.restore();
}

/**
 * Presenter mode: axis text a class can read from the back of the room. The chart keeps its height
 * (the newest answer stays where it was), so the x axis takes no more height than its larger ticks
 * need, and the y axis's title, drawn along the plot's height, is a size smaller than the ticks.
 */
function withLargeType(options: Omit<uPlot.Options, 'width' | 'height'>): Omit<uPlot.Options, 'width' | 'height'> {
  const font = '15px system-ui, sans-serif';
  return {
    ...options,
    axes: (options.axes ?? [{}, {}]).map((axis, i) =>
      i === 0
        ? { ...axis, font, labelFont: `bold ${font}`, size: 34, labelSize: 24 }
        : { ...axis, font, labelFont: 'bold 14px system-ui, sans-serif', size: typeof axis.size === 'number' ? Math.max(axis.size, 60) : 60 },
    ),
  };
}

/**
 * uPlot's live legend shows "--" while the cursor is off the plot; a projected chart has no
 * cursor, so there each series shows its latest value (the x series: the latest step).
 */
function withLatestInLegend(options: Omit<uPlot.Options, 'width' | 'height'>): Omit<uPlot.Options, 'width' | 'height'> {
  return {
    ...options,
    series: options.series.map((series, index) => ({
      ...series,
      value: (chart: uPlot, raw: number | null, _seriesIndex: number, dataIndex: number | null) => {
        const value = dataIndex === null ? latestValue(chart.data[index] ?? []) : raw;
        if (value === null || value === undefined) return dataIndex === null && (chart.data[0]?.length ?? 0) === 0 ? 'none yet' : 'not measured';
        return formatLegendValue(value);
      },
    })),
  };
}

/** A line needs two points: while a series has one, that point is drawn, so the first Step shows. */
function pointWhileAlone(chart: uPlot, seriesIndex: number): boolean {
  let points = 0;
  for (const value of chart.data[seriesIndex] ?? []) if (value !== null && value !== undefined && ++points > 1) return false;
  return points === 1;
}

/** A line series with the lab's look. */
export function lineSeries(label: string, stroke: string, extra: Partial<uPlot.Series> = {}): uPlot.Series {
  return { label, stroke, width: 2, points: { show: pointWhileAlone, size: 7 }, ...extra };
}

/** Steps are whole numbers: tick at these spacings only. */
const STEP_TICKS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000];

/** A y range: fixed, or from 0 to at least 1 (counts, where uPlot would stretch an all-zero series to 100). */
export type YRange = [number, number] | 'fromZero';

/** Options for a chart against training step (uPlot treats x as time unless told otherwise). */
export function stepChartOptions(series: uPlot.Series[], y: { range?: YRange; label?: string } = {}): Omit<uPlot.Options, 'width' | 'height'> {
  const range: uPlot.Scale['range'] = y.range === 'fromZero' ? (_u, _min, max) => [0, Math.max(1, max * 1.05)] : y.range;
  return {
    scales: {
      x: { time: false },
      y: range ? { range } : { auto: true },
    },
    // The x axis no taller than its ticks and title need, so the y axis's title has the plot's height.
    axes: [{ label: 'RL step', incrs: STEP_TICKS, size: 30, labelSize: 20 }, { label: y.label, size: 50 }],
    series: [{ label: 'step' }, ...series],
    legend: { live: true },
    cursor: { drag: { x: true, y: false } },
  };
}

export const PALETTE = {
  blue: '#2563eb',
  orange: '#ea580c',
  green: '#16a34a',
  purple: '#7c3aed',
  red: '#dc2626',
  grey: '#6b7280',
  teal: '#0d9488',
  pink: '#db2777',
};
export const SERIES_COLOURS = [PALETTE.blue, PALETTE.orange, PALETTE.green, PALETTE.purple, PALETTE.red, PALETTE.teal, PALETTE.pink, PALETTE.grey];
