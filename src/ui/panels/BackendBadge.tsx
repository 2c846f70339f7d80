/**
 * Where the model runs: the backend the worker picked (or was told), the WebGPU adapter and whether
 * it is a fallback (software) one, live tokens/s and the step-time split, and a menu to override.
 */
import { useLab, useLabShallow, useLabState } from '../LabContext';
import { BACKEND_CHOICES } from '../state/urlState';
import type { LabState } from '../state/labStore';
import type { BackendChoice, BackendName } from '../../trainerWorker/protocol';
import { GLOSSARY, type GlossaryTerm } from '../glossary';
import { Term } from './Term';

/** Each backend's name as the glossary spells it. */
const BACKEND_TERMS: Record<BackendName, GlossaryTerm> = { webgpu: 'WebGPU', webgl: 'WebGL', wasm: 'WASM', cpu: 'CPU' };

/**
 * The speed and time split of the latest step timed on the backend the badge names, as plain
 * numbers (the selector's result is compared field by field); none before such a step.
 */
export function latestFigures(state: LabState) {
  const timed = state.timedStep;
  const id = state.loadedRunId ?? state.selectedRunId;
  const columns = timed && timed.runId === id ? state.runs[id]?.columns : undefined;
  if (!timed || !columns) return null;
  const i = columns.step.lastIndexOf(timed.step);
  if (i < 0 || columns.generateSeconds[i] === null) return null;
  return {
    tokensPerSecond: columns.tokensPerSecond[i],
    generate: columns.generateSeconds[i] ?? 0,
    execute: columns.executeSeconds[i] ?? 0,
    update: columns.updateSeconds[i] ?? 0,
  };
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
  const total = figures ? figures.generate + figures.execute + figures.update : 0;

  return (
    <div className={`backend-badge worker-${worker}`} data-testid="backend-badge" title={info ? `${info.reason}\nprobe: ${probe.join(', ')}\n(probe: ${GLOSSARY.probe})` : undefined}>
      <span className="backend-name" data-testid="backend-name">
        {info ? <Term term={BACKEND_TERMS[info.name]}>{info.name.toUpperCase()}</Term> : worker === 'failed' ? 'no backend' : 'starting…'}
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
      {figures?.tokensPerSecond != null && <span className="backend-speed">{Math.round(figures.tokensPerSecond)} <Term term="tok/s" /></span>}
      {figures && total > 0 && (
        <span className="backend-split" title={GLOSSARY['gen / exec / upd']}>
          <span className="split-bar" aria-hidden="true">
            <span style={{ flexGrow: figures.generate, background: 'var(--c-generate)' }} />
            <span style={{ flexGrow: figures.execute, background: 'var(--c-execute)' }} />
            <span style={{ flexGrow: figures.update, background: 'var(--c-update)' }} />
          </span>
          gen {figures.generate.toFixed(1)} · exec {figures.execute.toFixed(1)} · upd {figures.update.toFixed(1)} s
        </span>
      )}
      <label className="backend-menu">
        <span className="visually-hidden">Backend</span>
        <select
          value={choice}
          disabled={busy !== null}
          data-testid="backend-select"
          title={GLOSSARY.backend}
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
