/**
 * The file buttons: a run's checkpoint out as a file, and a checkpoint file (ours, or the CLI's
 * model.json + weights.bin) in as a new paused run. Anything wrong with an import is refused with a
 * notice before anything changes.
 */
import type { ExperimentConfig } from '../../core/experiment';
import type { CheckpointBlob } from '../../core/run/checkpointBlob';
import { decodeCheckpointFiles, encodeCheckpointFile, type ImportFile } from '../../core/archive/checkpointFile';
import { makeRun, newRunId, type LabRun } from '../state/labRun';
import { notify, setRunCheckpoint, type LabStore } from '../state/labStore';
import { copyConfig } from '../state/urlState';

export interface TransferHost {
  store: LabStore;
  now: () => number;
  /** The run's checkpoint: saved now if the worker holds the run, else the stored one. */
  runCheckpoint(runId: string): Promise<{ step: number; blob: CheckpointBlob } | null | undefined>;
  /** The knobs if they pass configErrors, else null (and a notice). */
  knobs(): ExperimentConfig | null;
  addRun(run: LabRun): void;
}

/** The run's checkpoint as a file's text, or null (with a notice) when it has none. */
export async function exportRunCheckpoint(host: TransferHost, runId: string): Promise<string | null> {
  const run = host.store.getState().runs[runId];
  if (!run) return null;
  const saved = await host.runCheckpoint(runId);
  if (!saved) {
    notify(host.store, 'error', 'this run has no checkpoint yet: train at least one step');
    return null;
  }
  return encodeCheckpointFile(saved.blob, { name: run.name, preset: run.preset, config: run.config, step: saved.step });
}

export function importRunCheckpoint(host: TransferHost, files: ImportFile[]): boolean {
  let imported;
  try {
    imported = decodeCheckpointFiles(files);
  } catch (error) {
    notify(host.store, 'error', `import of ${files.map((f) => f.name).join(' + ')} refused: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
  const fileName = files.map((f) => f.name).join(' + ');
  const config = imported.run?.config ?? host.knobs();
  if (!config) return false;
  const run = makeRun({
    id: newRunId(host.now()),
    name: imported.run ? `${imported.run.name} (imported)` : `imported ${fileName}`,
    preset: imported.run?.preset ?? host.store.getState().preset,
    config: copyConfig(config),
    createdAt: host.now(),
    status: 'paused',
  });
  host.addRun({ ...run, step: imported.step });
  setRunCheckpoint(host.store, run.id, { step: imported.step, blob: imported.blob });
  host.store.setState({ selectedRunId: run.id, config: copyConfig(config) });
  notify(host.store, 'info', `imported ${fileName} at step ${imported.step}: press Train to continue it`);
  return true;
}
