/**
 * One colour per run, the same in every view that draws runs side by side (the sweep, the compare
 * view): a run's colour follows from its place among all the lab's runs by creation, not from its
 * place in one chart, so ticking runs in another order does not repaint them.
 */
import type { LabRun } from '../state/labRun';
import type { LabState } from '../state/labStore';
import { SERIES_COLOURS } from './UPlotChart';

/** Past the palette, hues a golden angle apart: never a colour twice, however many runs. */
export function colourAt(index: number): string {
  if (index < SERIES_COLOURS.length) return SERIES_COLOURS[index];
  const hue = Math.round(((index - SERIES_COLOURS.length) * 137.508 + 15) % 360);
  return `hsl(${hue}, 70%, 42%)`;
}

/** Every run's colour by id: the oldest run gets the palette's first, ties broken by id. */
export function runColours(runs: Record<string, Pick<LabRun, 'id' | 'createdAt'>>): Record<string, string> {
  const ordered = Object.values(runs).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return Object.fromEntries(ordered.map((run, i) => [run.id, colourAt(i)]));
}

/** The colours of these runs (ids of runs the state holds), in their order: a store selector for a chart's series. */
export function coloursOf(state: LabState, runIds: readonly string[]): string[] {
  const colours = runColours(state.runs);
  return runIds.map((id) => colours[id]);
}
