/**
 * "Ask the model": one question to the shown run's model, in the lab's worker. Which model: the
 * shown run's (its weights now when the worker holds it, else as last saved), or, for a run with
 * nothing saved or no run at all, the model runs start from; with a label that says which, for the
 * answer's heading.
 */
import type { ModelAnswer } from '../../core/rollout/answerQuestion';
import type { AskedModel } from '../../trainerWorker/askRequest';
import type { CheckpointBlob } from '../../core/run/checkpointBlob';
import { notify, selectedRun, validKnobs, type LabStore, type RunCheckpoint } from '../state/labStore';
import { START_MODELS, type StartFrom } from '../../core/archive/startFrom';
import type { WorkerSession } from './workerSession';

export interface AskHost {
  store: LabStore;
  storedCheckpoint(runId: string): Promise<RunCheckpoint | null>;
  startModel(start: StartFrom): Promise<CheckpointBlob>;
}

interface ModelToAsk {
  model: AskedModel;
  label: string;
}

export interface AskListener {
  /** Which model answers (its label). */
  onModel(label: string): void;
  /** The answer as it is written. */
  onAnswer(answer: ModelAnswer): void;
}

/**
 * Asks `question` with the knobs' Nmax, temperature and seed. Not while a run trains or a step runs.
 * Resolves to the answer, or null when it was not asked.
 */
export async function askShownModel(session: WorkerSession, host: AskHost, question: string, greedy: boolean, listener: AskListener): Promise<ModelAnswer | null> {
  if (session.isRunning) {
    notify(host.store, 'info', 'the model is busy training: pause it (or let the step finish), then ask');
    return null;
  }
  const config = validKnobs(host.store);
  if (!config) return null;
  let answer: ModelAnswer | null = null;
  await session.command('Asking the model…', async (api) => {
    const { model, label } = await modelToAsk(host);
    listener.onModel(label);
    answer = await api.askModel({ question, config, greedy, model }, listener.onAnswer);
  });
  return answer;
}

async function modelToAsk(host: AskHost): Promise<ModelToAsk> {
  const state = host.store.getState();
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
