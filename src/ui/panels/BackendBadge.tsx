/**
 * Where the model runs: the backend the worker picked (or was told), the WebGPU adapter and whether
 * it is a fallback (software) one, live tokens/s and the step-time split, and a menu to override.
 */
import { useLab, useLabShallow, useLabState } from '../LabContext';
import { BACKEND_CHOICES } from '../state/urlState';
import type { LabState } from '../state/labStore';
import type { BackendChoice } from '../../labWorker/protocol';

function latestFigures(state: LabState) {
  const id = state.loadedRunId ?? state.selectedRunId;
  const history = id ? (state.runs[id]?.history ?? []) : [];
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i];
    if (m.seconds) return { tokensPerSecond: m.tokensPerSecond, seconds: m.seconds };
  }
  return null;
}

export function BackendBadge() {
  const { controller } = useLab();
  const worker = useLabState((s) => s.worker);
  const info = useLabState((s) => s.backendInfo);
  const choice = useLabState((s) => s.backend);
  const busy = useLabState((s) => s.busy);
  const figures = useLabShallow(latestFigures);
  const adapter = info?.adapter;
  const probe = info ? Object.entries(info.probeMs).map(([name, ms]) => `${name} ${ms === null || ms === undefined ? 'n/a' : `${ms.toFixed(1)} ms`}`) : [];
  const total = figures ? figures.seconds.generate + figures.seconds.execute + figures.seconds.update : 0;

  return (
    <div className={`backend-badge worker-${worker}`} data-testid="backend-badge" title={info ? `${info.reason}\nprobe: ${probe.join(', ')}` : undefined}>
      <span className="backend-name" data-testid="backend-name">
        {info ? info.name.toUpperCase() : worker === 'failed' ? 'no backend' : 'starting…'}
      </span>
      {worker === 'failed' && <span className="backend-failed">trainer stopped</span>}
      {info && (
        <span className="backend-reason" data-testid="backend-reason">
          {info.reason}
        </span>
      )}
      {adapter && (
        <span className="backend-adapter" data-testid="backend-adapter">
          {info?.name === 'webgpu' ? '' : 'WebGPU seen: '}
          {adapter.vendor || 'unknown vendor'}
          {adapter.architecture ? ` / ${adapter.architecture}` : ''}
          {adapter.isFallbackAdapter ? ' (fallback adapter)' : ''}
        </span>
      )}
      {figures?.tokensPerSecond != null && <span className="backend-speed">{Math.round(figures.tokensPerSecond)} tok/s</span>}
      {figures && total > 0 && (
        <span className="backend-split" title="last step: generate / execute / update (seconds)">
          <span className="split-bar" aria-hidden="true">
            <span style={{ flexGrow: figures.seconds.generate, background: 'var(--c-generate)' }} />
            <span style={{ flexGrow: figures.seconds.execute, background: 'var(--c-execute)' }} />
            <span style={{ flexGrow: figures.seconds.update, background: 'var(--c-update)' }} />
          </span>
          gen {figures.seconds.generate.toFixed(1)} · exec {figures.seconds.execute.toFixed(1)} · upd {figures.seconds.update.toFixed(1)} s
        </span>
      )}
      <label className="backend-menu">
        <span className="visually-hidden">Backend</span>
        <select
          value={choice}
          disabled={busy !== null}
          data-testid="backend-select"
          onChange={(e) => void controller.switchBackend(e.target.value as BackendChoice)}
        >
          {BACKEND_CHOICES.map((b) => (
            <option key={b} value={b}>
              {b === 'auto' ? 'auto (fastest)' : b}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
