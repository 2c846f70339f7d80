/**
 * The run file buttons (core/archive/runFile.ts): a run out as one file with its curves, samples
 * and whole run state, and such a file in as a new run of this lab, shown, with its settings in the
 * knobs. Train then continues it from its checkpoint as after a reload. Anything wrong with a file
 * is refused with a notice before anything changes; a name already taken gets " (2)", never an
 * overwrite. The import button takes checkpoint files too (checkpointTransfer.ts).
 */
import { CHECKPOINT_FILE_FORMAT, type ImportFile } from '../../core/archive/checkpointFile';
import { decodeRunFile, encodeRunFile, isRunFile } from '../../core/archive/runFile';
import { CSV_COLUMNS, RUN_EXPORT_FORMAT } from '../../core/archive/runExport';
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
 * Whether a file's text opens as the lab's file of `format` (a run file, a checkpoint file). One this
 * lab wrote opens with its format, which is read without parsing the file twice; a cut file no
 * longer parses, but still opens so: it is refused as what it was, with the reason.
 */
function opensAs(text: string, format: string, isFile: (parsed: unknown) => boolean): boolean {
  if (new RegExp(`^\\s*\\{\\s*"format"\\s*:\\s*"${format}"`).test(text.slice(0, 200))) return true;
  try {
    return isFile(JSON.parse(text));
  } catch {
    return false;
  }
}

const isCheckpointFile = (parsed: unknown) => typeof parsed === 'object' && parsed !== null && (parsed as { format?: unknown }).format === CHECKPOINT_FILE_FORMAT;

/** A run file as a new run with its curves, or a checkpoint file (or the CLI's pair) as a new paused run. */
export function importRunOrCheckpoint(host: RunTransferHost, files: ImportFile[]): boolean {
  if (files.length === 1) {
    const [file] = files;
    const text = new TextDecoder().decode(file.bytes);
    if (opensAs(text, RUN_EXPORT_FORMAT, isRunFile)) return importRunFile(host, file.name, text);
    if (!opensAs(text, CHECKPOINT_FILE_FORMAT, isCheckpointFile)) {
      notify(host.store, 'error', `import of ${file.name} refused: ${neitherRunNorCheckpoint(file.name, text)}`);
      return false;
    }
  }
  return importRunCheckpoint(host, files);
}

/** Why a file is not one the lab imports, in the words of the buttons that write those. */
function neitherRunNorCheckpoint(fileName: string, text: string): string {
  if (/\.csv$/i.test(fileName) || text.startsWith(`${CSV_COLUMNS[0]},`)) return 'a CSV export holds only the curves, for a spreadsheet; import the file Export run writes';
  return 'it is neither a run file (Export run) nor a checkpoint file (Export checkpoint) of this lab';
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
