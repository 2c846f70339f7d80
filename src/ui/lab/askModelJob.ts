/**
 * Which model "Ask the model" asks: the shown run's (its weights now when the worker holds it, else
 * as last saved), or, for a run with nothing saved or no run at all, the model runs start from.
 * With a label that says which, for the answer's heading.
 */
import type { AskedModel } from '../../labWorker/askRequest';
import type { CheckpointBlob } from '../../labWorker/checkpointBlob';
import { selectedRun, type LabState, type RunCheckpoint } from '../state/labStore';
import { START_MODELS, type StartFrom } from '../state/startFrom';

export interface AskHost {
  state(): LabState;
  storedCheckpoint(runId: string): Promise<RunCheckpoint | null>;
  startModel(start: StartFrom): Promise<CheckpointBlob>;
}

export interface ModelToAsk {
  model: AskedModel;
  label: string;
}

export async function modelToAsk(host: AskHost): Promise<ModelToAsk> {
  const state = host.state();
  const run = selectedRun(state);
  if (run && state.loadedRunId === run.id) return { model: { kind: 'run', runId: run.id }, label: `“${run.name}” at step ${run.step}` };
  const saved = run ? await host.storedCheckpoint(run.id) : null;
  if (run && saved) return { model: { kind: 'checkpoint', checkpoint: saved.blob }, label: `“${run.name}” as saved at step ${saved.step}` };
  const start = run?.startFrom ?? state.startFrom;
  if (start !== 'base') return { model: { kind: 'checkpoint', checkpoint: await host.startModel(start) }, label: `the ${START_MODELS[start].label}, before any practice` };
  if (state.baseModel === 'pretrained' && state.pretrainedBase) {
    return { model: { kind: 'checkpoint', checkpoint: state.pretrainedBase.checkpoint }, label: 'the base model pretrained here, before any practice' };
  }
  return { model: { kind: 'base' }, label: `the ${START_MODELS.base.label}, before any practice` };
}
