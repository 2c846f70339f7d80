/**
 * The run file buttons (core/archive/runFile.ts): a run out as one file with its curves, samples
 * and whole run state, and such a file in as a new run of this lab, shown, with its settings in the
 * knobs. Train then continues it from its checkpoint as after a reload. Anything wrong with a file
 * is refused with a notice before anything changes; a name already taken gets " (2)", never an
 * overwrite. The import button takes checkpoint files too (checkpointTransfer.ts).
 */
import type { ImportFile } from '../../core/archive/checkpointFile';
import { decodeRunFile, encodeRunFile, isRunFile } from '../../core/archive/runFile';
import { makeRun, newRunId, uniqueRunName } from '../state/labRun';
import { metricsRows } from '../state/runColumns';
import { notify, setRunCheckpoint } from '../state/labStore';
import { importRunCheckpoint, type TransferHost } from './checkpointTransfer';

export interface RunTransferHost extends TransferHost {
  /** Shows a run and puts its settings into the knobs. */
  selectRun(runId: string): void;
}

/** The run as a run file's text (with its checkpoint, saved now if the worker holds the run). */
export async function exportRunFile(host: TransferHost, runId: string): Promise<string | null> {
  const run = host.store.getState().runs[runId];
  if (!run) return null;
  const saved = await host.runCheckpoint(runId);
  const current = host.store.getState().runs[runId] ?? run;
  return encodeRunFile({ ...current, metrics: metricsRows(current.columns) }, saved ?? null);
}

/**
 * Whether a file's text is a run file rather than a checkpoint file. One this lab wrote opens with
 * its format, which is read without parsing the file twice; a cut run file no longer parses, but
 * still opens so: it is refused as a run file.
 */
function looksLikeRunFile(text: string): boolean {
  if (/^\s*\{\s*"format"\s*:\s*"tir-lab-run"/.test(text.slice(0, 200))) return true;
  try {
    return isRunFile(JSON.parse(text));
  } catch {
    return false;
  }
}

/** A run file as a new run with its curves, or a checkpoint file (or the CLI's pair) as a new paused run. */
export function importRunOrCheckpoint(host: RunTransferHost, files: ImportFile[]): boolean {
  if (files.length === 1) {
    const text = new TextDecoder().decode(files[0].bytes);
    if (looksLikeRunFile(text)) return importRunFile(host, files[0].name, text);
  }
  return importRunCheckpoint(host, files);
}

/** A run file's text as a new run; false (with a notice) when it is refused. */
function importRunFile(host: RunTransferHost, fileName: string, text: string): boolean {
  let imported;
  try {
    imported = decodeRunFile(text);
  } catch (error) {
    notify(host.store, 'error', `import of ${fileName} refused: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
  const state = host.store.getState();
  const name = uniqueRunName(imported.name, Object.values(state.runs).map((r) => r.name));
  const lastStep = imported.metrics.length > 0 ? imported.metrics[imported.metrics.length - 1].step : 0;
  const run = makeRun({
    id: newRunId(host.now()),
    name,
    preset: imported.preset,
    config: imported.config,
    createdAt: host.now(),
    history: imported.metrics,
    samples: imported.samples,
    status: lastStep >= imported.config.steps ? 'finished' : 'paused',
    startFrom: imported.startFrom,
  });
  host.addRun({ ...run, evaluation: imported.evaluation, passAtOne: imported.passAtOne });
  const checkpoint = imported.checkpoint;
  if (checkpoint) setRunCheckpoint(host.store, run.id, checkpoint);
  host.selectRun(run.id);
  const renamed = name === imported.name ? '' : ` as "${name}" (a run named "${imported.name}" is already here)`;
  const next = checkpoint
    ? `at step ${lastStep}: press Train to continue it from its checkpoint at step ${checkpoint.step}`
    : 'with its curves only (a version 1 file, or a run not yet trained): Train starts it again from step 0';
  notify(host.store, 'info', `imported ${fileName}${renamed} ${next}`);
  return true;
}
