/**
 * Which run the lab shows (the charts, the inspector, the controls act on it). A run added is shown;
 * a run selected puts its settings into the knobs, so the settings panel and the presenter caption
 * describe the run on the charts.
 */
import type { LabRun } from '../state/labRun';
import { putRun, type LabStore } from '../state/labStore';
import { labPreset } from '../state/presets';
import { copyConfig } from '../state/urlState';

export function addRun(store: LabStore, run: LabRun): void {
  putRun(store, run);
  store.setState({ selectedRunId: run.id });
}

/** Shows a run and puts its config (and preset) into the knobs. */
export function showRun(store: LabStore, id: string): void {
  const state = store.getState();
  const run = state.runs[id];
  if (!run) return;
  store.setState({
    selectedRunId: id,
    config: copyConfig(run.config),
    preset: labPreset(run.preset) ? run.preset : state.preset,
    startFrom: run.startFrom,
  });
}
