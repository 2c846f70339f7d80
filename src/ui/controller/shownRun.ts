/**
 * Which run the lab shows (the charts, the inspector, the controls act on it). A run added is shown;
 * a run selected puts its settings into the knobs, so the settings panel and the presenter caption
 * describe the run on the charts.
 */
import { makeRun, type LabRun, type NewRunFields } from '../state/labRun';
import { putRun, setRunCheckpoint, type LabStore, type RunCheckpoint } from '../state/labStore';
import { labPreset } from '../state/presets';
import { metricsRows } from '../state/runColumns';
import { copyConfig } from '../state/urlState';

export function addRun(store: LabStore, run: LabRun): void {
  putRun(store, run);
  store.setState({ selectedRunId: run.id });
}

/**
 * A new paused run, shown, that goes on where `source` was saved: `source`'s curves and samples up to
 * `saved`'s step, and `saved` as its checkpoint; with nothing saved, from step 0 without curves.
 * Fork and the restart question's "keep" make it.
 */
export function addRunFromSaved(
  store: LabStore,
  source: LabRun,
  saved: RunCheckpoint | null,
  fields: Pick<NewRunFields, 'id' | 'name' | 'preset' | 'config' | 'createdAt' | 'startFrom'>,
): LabRun {
  const step = saved?.step ?? 0;
  const run = makeRun({
    ...fields,
    history: saved ? metricsRows(source.columns).filter((m) => m.step <= step) : [],
    samples: saved ? source.samples.filter((s) => s.step <= step) : [],
    status: 'paused',
  });
  addRun(store, run);
  if (saved) setRunCheckpoint(store, run.id, saved);
  return run;
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
