/**
 * The evaluation panel's command: ReTool's pass@1 on the held-out test set (`npm run eval` in the
 * worker, TrainerWorkerApi.evaluatePassAtOne) for a run's checkpoint, which is its current weights
 * when the worker holds the run, or for a start model. A run's result is kept with the run (and so
 * in IndexedDB); a start model's for as long as the page is open.
 */
import type { PassAtOneSettings } from '../../core/eval/evalReport';
import { passAtOneSettingsErrors } from '../../trainerWorker/evaluationRequest';
import type { CheckpointBlob } from '../../core/run/checkpointBlob';
import type { TrainerWorkerApi } from '../../trainerWorker/protocol';
import type { PassAtOneResult } from '../../core/eval/evalReport';
import { notify, patchRun, type LabState, type LabStore } from '../state/labStore';
import { START_FROM_CHOICES, START_MODELS, isStartFrom, type StartFrom } from '../../core/archive/startFrom';
import type { WorkerSession } from './workerSession';

export type EvaluationSource = { kind: 'run'; runId: string } | { kind: 'start'; start: StartFrom };

export interface EvaluationOption {
  /** The source as a select value: 'run:<id>' or 'start:<start>'. */
  key: string;
  label: string;
}

/** What the job needs from the controller. */
export interface EvaluationHost {
  store: LabStore;
  now(): number;
  /** The run's checkpoint: saved now (and stored) if the worker holds the run, else the stored one. */
  runCheckpoint(api: TrainerWorkerApi, runId: string): Promise<{ step: number; blob: CheckpointBlob } | null>;
  startModel(start: StartFrom): Promise<CheckpointBlob>;
}

export function sourceKey(source: EvaluationSource): string {
  return source.kind === 'run' ? `run:${source.runId}` : `start:${source.start}`;
}

export function parseSourceKey(key: string): EvaluationSource | null {
  const [kind, ...rest] = key.split(':');
  const value = rest.join(':');
  if (kind === 'run' && value !== '') return { kind: 'run', runId: value };
  if (kind === 'start' && isStartFrom(value)) return { kind: 'start', start: value };
  return null;
}

/** The runs that have weights to evaluate (held by the worker, or with a saved checkpoint), newest first; then the start models. */
export function evaluationOptions(state: LabState): EvaluationOption[] {
  const runs = state.runOrder
    .map((id) => state.runs[id])
    .filter((run) => run !== undefined && (run.id === state.loadedRunId || run.checkpointStep !== null))
    .map((run) => ({
      key: sourceKey({ kind: 'run', runId: run.id }),
      label: run.id === state.loadedRunId ? `${run.name} (now, step ${run.step})` : `${run.name} (saved @ step ${run.checkpointStep})`,
    }));
  const starts = START_FROM_CHOICES.map((start) => ({ key: sourceKey({ kind: 'start', start }), label: `${START_MODELS[start].label}, step 0` }));
  return [...runs, ...starts];
}

/** The result kept for a source, if any. */
export function resultOf(state: LabState, source: EvaluationSource | null): PassAtOneResult | null {
  if (!source) return null;
  if (source.kind === 'run') return state.runs[source.runId]?.passAtOne ?? null;
  return state.passAtOne.startModels[source.start] ?? null;
}

/** ReTool's pass@1 of a run's checkpoint or a start model on the held-out set; not while training. */
export async function evaluateInWorker(session: WorkerSession, host: EvaluationHost, source: EvaluationSource, settings: PassAtOneSettings): Promise<void> {
  if (session.isRunning) {
    notify(host.store, 'error', 'pause training before evaluating');
    return;
  }
  await session.command('Evaluating pass@1…', (api) => evaluateSource(host, api, source, settings));
}

/** Asks the worker to stop the running evaluation after its current chunk. */
export async function stopEvaluation(session: WorkerSession, store: LabStore): Promise<void> {
  const api = session.api;
  if (!api || !store.getState().passAtOne.running) return;
  store.setState((s) => ({ passAtOne: { ...s.passAtOne, running: s.passAtOne.running && { ...s.passAtOne.running, cancelling: true } } }));
  await session.guard(api.cancelEvaluation());
}

/** Evaluates `source` with `settings` and keeps the result; a cancel leaves the previous result. */
async function evaluateSource(host: EvaluationHost, api: TrainerWorkerApi, source: EvaluationSource, settings: PassAtOneSettings): Promise<void> {
  const errors = Object.values(passAtOneSettingsErrors(settings));
  if (errors.length > 0) throw new Error(`fix the evaluation settings first: ${errors.join('; ')}`);
  const { store } = host;
  const target = await resolveSource(host, api, source);
  store.setState((s) => ({ passAtOne: { ...s.passAtOne, running: { source: sourceKey(source), cancelling: false } } }));
  try {
    const report = await api.evaluatePassAtOne({ ...settings, checkpoint: target.blob, label: target.label });
    if (report === null) {
      notify(store, 'info', 'evaluation cancelled');
      return;
    }
    const result: PassAtOneResult = { step: target.step, report, evaluatedAt: host.now() };
    if (source.kind === 'run') {
      patchRun(store, source.runId, { passAtOne: result });
    } else {
      store.setState((s) => ({ passAtOne: { ...s.passAtOne, startModels: { ...s.passAtOne.startModels, [source.start]: result } } }));
    }
  } finally {
    store.setState((s) => ({ passAtOne: { ...s.passAtOne, running: null } }));
  }
}

async function resolveSource(host: EvaluationHost, api: TrainerWorkerApi, source: EvaluationSource): Promise<{ step: number; blob: CheckpointBlob; label: string }> {
  if (source.kind === 'start') {
    const model = START_MODELS[source.start];
    return { step: 0, blob: await host.startModel(source.start), label: `${model.label}: models/${model.folder} @ step 0` };
  }
  const run = host.store.getState().runs[source.runId];
  if (!run) throw new Error('that run is gone');
  const saved = await host.runCheckpoint(api, run.id);
  if (!saved) throw new Error(`${run.name} has no checkpoint yet: train at least one step`);
  return { step: saved.step, blob: saved.blob, label: `${run.name} @ step ${saved.step}` };
}
