/**
 * The held-out evaluation of the lab's evaluation panel, worker side: a checkpoint loaded into a
 * model of its own (the run being trained is not touched) and evaluated by the engine's one pass@1
 * path (core/eval/passAtOne.ts), which `npm run eval` runs too: the same seed gives the CLI's draws
 * and report. The format and the episode limits come from the checkpoint, as in the CLI. Here each
 * chunk of samples is a unit of work of the session's queue, so training steps queued meanwhile
 * wait one chunk, with progress and an ETA after it and a cancel that takes effect within one.
 */
import { checkpointEpisodeLimits } from '../core/eval/checkpointLimits';
import type { EvalReport, PassAtOneSettings } from '../core/eval/evalReport';
import { passAtOneReport } from '../core/eval/passAtOne';
import { deserializeCheckpoint } from '../core/run/checkpoint';
import type { GPT } from '../core/model/gpt';
import type { PythonSandbox } from '../core/sandbox/protocol';
import type { Problem } from '../core/tasks/problem';
import { evalSet } from '../core/tasks/splits';
import { passAtOneSettingsErrors, type PassAtOneRequest } from './evaluationRequest';
import { progressEvent } from './progressEvent';
import type { LabEvent } from './protocol';

export interface EvaluationHooks {
  sandbox: PythonSandbox;
  emit(event: LabEvent): void;
  /** Runs one chunk with exclusive use of the backend (the session's work queue). */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** Lets the worker handle messages (a cancel) between chunks. */
  yieldToEvents(): Promise<void>;
  shouldStop(): boolean;
}

/** Loads the request's checkpoint, evaluates it and frees it; null when stopped before the end. */
export async function runPassAtOneJob(request: PassAtOneRequest, hooks: EvaluationHooks): Promise<EvalReport | null> {
  checkRequest(request);
  const { model, meta } = await hooks.exclusive(async () => deserializeCheckpoint(request.checkpoint?.manifest, request.checkpoint?.weights));
  try {
    return await passAtOneWithProgress(model, meta, request, hooks);
  } finally {
    model.dispose();
  }
}

/** The report for `model` on `problems` (the held-out evaluation set unless given), with 'progress' events per chunk. */
export async function passAtOneWithProgress(
  model: GPT,
  meta: Record<string, unknown>,
  request: PassAtOneSettings & { label: string },
  hooks: EvaluationHooks,
  problems: Problem[] = evalSet(),
): Promise<EvalReport | null> {
  checkRequest(request);
  const { nmaxList, k, temperature, topP, seed, label } = request;
  const started = performance.now();
  return passAtOneReport(model, problems, { nmaxList, k, temperature, topP, seed, label }, checkpointEpisodeLimits(meta), hooks.sandbox, {
    exclusive: (work) => hooks.exclusive(work),
    shouldStop: () => hooks.shouldStop(),
    progress: async ({ done, total, nmax, problemsDone }) => {
      if (done === 0) {
        hooks.emit(progressEvent('evaluate', 0, total, 0, `pass@1, ${problems.length} problems x k ${k}`));
        return;
      }
      hooks.emit(progressEvent('evaluate', done, total, performance.now() - started, `Nmax ${nmax}: ${problemsDone}/${problems.length} problems`));
      await hooks.yieldToEvents();
    },
  });
}

function checkRequest(request: PassAtOneSettings & { label: string }): void {
  if (typeof request !== 'object' || request === null) throw new Error('the evaluation needs a request object');
  const errors = Object.values(passAtOneSettingsErrors(request));
  if (typeof request.label !== 'string') errors.push('label must be a string');
  if (errors.length > 0) throw new Error(`invalid evaluation settings: ${errors.join('; ')}`);
}
