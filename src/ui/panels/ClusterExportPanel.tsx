/**
 * Export for a cluster: the experiment on screen (its knobs, the selected run's name) as a zip
 * for verl or OpenRLHF, started from a Hugging Face model (docs/scale-out.md).
 */
import { useState } from 'react';
import { configErrors } from '../../core/experiment';
import { ENGINE_RELEASES, ENGINES, type EngineName } from '../../core/export/engineVersions';
import { DEFAULT_START_MODEL } from '../../core/export/startModel';
import { useLabState } from '../LabContext';
import { downloadBytes } from '../files/download';
import { selectedRun } from '../state/labStore';

export function ClusterExportPanel() {
  const config = useLabState((s) => s.config);
  const source = useLabState((s) => selectedRun(s)?.name ?? s.preset);
  const [engine, setEngine] = useState<EngineName>('verl');
  const [model, setModel] = useState(DEFAULT_START_MODEL);
  const invalid = Object.keys(configErrors(config)).length > 0 || model.trim() === '';

  const exportZip = async () => {
    // Loaded on demand: the parquet writer, the zip and the Python files stay out of the page's first load.
    const { clusterExportZip } = await import('../files/clusterExport');
    const { fileName, bytes } = clusterExportZip(engine, config, model.trim(), source);
    downloadBytes(fileName, bytes, 'application/zip');
  };

  return (
    <section className="panel cluster-export" aria-labelledby="cluster-export-title" data-testid="cluster-export-panel">
      <h2 id="cluster-export-title">Outgrow the browser</h2>
      <p className="hint">These knobs, the lab&apos;s train and test split, reward and tool loop, for a Hugging Face model on a GPU cluster.</p>
      <div className="field">
        <label htmlFor="cluster-engine">Engine</label>
        <select id="cluster-engine" data-testid="cluster-engine" value={engine} onChange={(e) => setEngine(e.target.value as EngineName)}>
          {ENGINES.map((name) => (
            <option key={name} value={name}>
              {ENGINE_RELEASES[name]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="cluster-model">Model</label>
        <input id="cluster-model" data-testid="cluster-model" value={model} onChange={(e) => setModel(e.target.value)} />
      </div>
      <div className="file-buttons">
        <button type="button" data-testid="cluster-export-button" disabled={invalid} onClick={() => void exportZip()}>
          Export for a cluster
        </button>
      </div>
    </section>
  );
}
