/**
 * The runs this browser keeps (IndexedDB): pick one to show it and put its knobs back; tick runs to
 * compare them; export it as a run file (curves, samples and run state: docs/run-file.md) or its
 * metrics as CSV, export its checkpoint; import a run file or a checkpoint; delete it.
 */
import { useRef } from 'react';
import { GLOSSARY } from '../glossary';
import { useLab, useLabState } from '../LabContext';
import { downloadRunFile, downloadText } from '../files/download';
import { exportFileName, runCsv } from '../../core/archive/runExport';
import { MAX_RUN_FILE_CHARS } from '../../core/archive/runFile';
import { notify, toggleCompared } from '../state/labStore';
import { metricsRows } from '../state/runColumns';
import { Term } from './Term';

export function RunList() {
  const { store, controller } = useLab();
  const compared = useLabState((s) => s.comparedRunIds);
  const runOrder = useLabState((s) => s.runOrder);
  const runs = useLabState((s) => s.runs);
  const broken = useLabState((s) => s.brokenRuns);
  const selectedId = useLabState((s) => s.selectedRunId);
  const loadedId = useLabState((s) => s.loadedRunId);
  const busy = useLabState((s) => s.busy);
  const fileInput = useRef<HTMLInputElement>(null);
  const selected = selectedId ? runs[selectedId] : undefined;

  const exportRun = async () => {
    if (!selected) return;
    const text = await controller.exportRun(selected.id);
    if (text) downloadRunFile(selected.name, text);
  };
  const exportCsv = () => {
    if (selected) downloadText(exportFileName(selected.name, 'csv'), runCsv(metricsRows(selected.columns)), 'text/csv');
  };
  const exportCheckpoint = async () => {
    if (!selected) return;
    const text = await controller.exportCheckpoint(selected.id);
    if (text) downloadText(exportFileName(`${selected.name}-step${selected.step}-checkpoint`, 'json'), text, 'application/json');
  };
  const importFiles = async (files: FileList | null) => {
    if (!files || files.length === 0) return;
    // Refused before it is read: a file this large would fill the tab's memory first.
    const huge = [...files].find((f) => f.size > MAX_RUN_FILE_CHARS);
    if (huge) {
      notify(store, 'error', `import of ${huge.name} refused: the file is ${Math.ceil(huge.size / 2 ** 20)} MB, larger than a run file can be (${MAX_RUN_FILE_CHARS / 2 ** 20} MB)`);
      if (fileInput.current) fileInput.current.value = '';
      return;
    }
    const read = await Promise.all([...files].map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) })));
    controller.importFiles(read);
    if (fileInput.current) fileInput.current.value = '';
  };

  return (
    <section className="panel runs" aria-labelledby="runs-title">
      <h2 id="runs-title">Runs</h2>
      <ul className="run-list" data-testid="run-list">
        {runOrder.length === 0 && broken.length === 0 && <li className="empty">No runs yet. They are kept in this browser.</li>}
        {runOrder.map((id) => {
          const run = runs[id];
          if (!run) return null;
          return (
            <li key={id} className={id === selectedId ? 'run-item run-selected' : 'run-item'} data-testid="run-item">
              <input
                type="checkbox"
                className="run-compare"
                data-testid="run-compare"
                aria-label={`Compare ${run.name}`}
                title="Tick two or more runs to compare them"
                checked={compared.includes(id)}
                onChange={() => toggleCompared(store, id)}
              />
              <button type="button" className="run-select" onClick={() => controller.selectRun(id)} aria-pressed={id === selectedId}>
                <span className="run-name" data-testid="run-name">
                  {run.name}
                </span>
                <span className="run-meta">
                  <span className={`status status-${run.status}`}>{run.status}</span> step {run.step}/{run.config.steps}
                  {id === loadedId ? ' · loaded' : ''}
                  {run.checkpointStep !== null && (
                    <>
                      {' · '}
                      <Term term="saved @N">saved @{run.checkpointStep}</Term>
                    </>
                  )}
                </span>
              </button>
              <button
                type="button"
                className="run-delete"
                aria-label={`Delete ${run.name}`}
                title="Delete this run"
                disabled={id === loadedId && run.status === 'training'}
                onClick={() => {
                  if (confirm(`Delete “${run.name}” and its checkpoint?`)) void controller.deleteRun(id);
                }}
              >
                ×
              </button>
            </li>
          );
        })}
        {broken.map((run) => (
          <li key={run.id} className="run-item run-broken" data-testid="run-broken">
            <span className="run-name">{run.name}</span>
            <span className="run-meta">
              <span className="status status-error">broken</span> cannot be shown: {run.reason}
            </span>
            <button
              type="button"
              className="run-delete"
              aria-label={`Delete ${run.name}`}
              title="Delete this run"
              onClick={() => {
                if (confirm(`Delete “${run.name}”? It cannot be shown.`)) controller.deleteBrokenRun(run.id);
              }}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <div className="file-buttons">
        <button
          type="button"
          data-testid="export-run-button"
          disabled={!selected || busy !== null}
          title="One file with the run's settings, curves, answers and training state: import it in any browser and train on"
          onClick={() => void exportRun()}
        >
          Export run
        </button>
        <button type="button" data-testid="export-csv-button" disabled={!selected} onClick={exportCsv} title={`CSV: ${GLOSSARY.CSV}`}>
          Export CSV
        </button>
        <button
          type="button"
          data-testid="export-checkpoint-button"
          disabled={!selected || busy !== null}
          onClick={() => void exportCheckpoint()}
          title={`Checkpoint: ${GLOSSARY.checkpoint}`}
        >
          Export checkpoint
        </button>
        <label className="button-like" title="A run file or a checkpoint .json exported here, or a CLI model.json with its weights.bin">
          Import
          <input
            ref={fileInput}
            type="file"
            multiple
            accept=".json,.bin,application/json"
            data-testid="import-input"
            onChange={(e) => void importFiles(e.target.files)}
          />
        </label>
      </div>
    </section>
  );
}
