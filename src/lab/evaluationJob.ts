/**
 * The held-out evaluation of the lab's evaluation panel, `npm run eval` in the worker: a checkpoint
 * loaded into a model of its own (the run being trained is not touched), k samples per test problem
 * at each inference Nmax with nucleus sampling, scored by the engine's evalBlock into the CLI's
 * report. The format and the episode limits come from the checkpoint, as in the CLI.
 *
 * The CLI samples a whole Nmax block as one batch. Here a block is drawn in chunks of about
 * CHUNK_ROWS answers (whole problems with their k samples), each its own unit of work: progress
 * and an ETA after every chunk, a cancel that takes effect within one, and training steps queued
 * meanwhile wait one chunk, not a whole block. So the same seed gives other (equally valid) draws
 * than the CLI's; every Nmax block still uses the same draws' streams.
 */
import { TOOL_FORMATS } from '../core/env/formats';
import { checkpointEpisodeLimits } from '../core/eval/checkpointLimits';
import { sandboxRunOptions } from '../core/experiment';
import type { Rollout } from '../core/rl/rollout';
import { evalBlock, type EvalBlock } from '../core/eval/passAtOne';
import { deserializeCheckpoint } from '../core/model/checkpoint';
import type { GPT } from '../core/model/gpt';
import { Random } from '../core/random';
import { evaluateProblems } from '../core/rl/evaluate';
import type { PythonSandbox } from '../core/sandbox/protocol';
import type { Problem } from '../core/tasks/problem';
import { evalSet } from '../core/tasks/splits';
import { withNucleusFilter } from '../core/eval/nucleus';
import { passAtOneSettingsErrors, type EvalReport, type PassAtOneRequest, type PassAtOneSettings } from './evaluationRequest';
import { progressEvent } from './progressEvent';
import type { LabEvent } from './protocol';

/** Answers sampled per unit of work (one batch through the model). */
export const CHUNK_ROWS = 64;

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
    return await passAtOneReport(model, meta, request, hooks);
  } finally {
    model.dispose();
  }
}

/** The report for `model` on `problems` (the held-out evaluation set unless given). */
export async function passAtOneReport(
  model: GPT,
  meta: Record<string, unknown>,
  request: PassAtOneSettings & { label: string },
  hooks: EvaluationHooks,
  problems: Problem[] = evalSet(),
): Promise<EvalReport | null> {
  checkRequest(request);
  const { nmaxList, k, temperature, topP, seed } = request;
  const limits = checkpointEpisodeLimits(meta);
  const sampler = withNucleusFilter(model, temperature, topP);
  const perChunk = Math.max(1, Math.floor(CHUNK_ROWS / k));
  const chunks = Array.from({ length: Math.ceil(problems.length / perChunk) }, (_, c) => problems.slice(c * perChunk, (c + 1) * perChunk));
  // One seed per chunk, the same for every Nmax: blocks differ by the budget, not by the draws.
  const seeds = new Random(seed);
  const chunkSeeds = chunks.map((_, c) => seeds.fork(c).seed());
  const total = nmaxList.length * chunks.length;
  const started = performance.now();
  hooks.emit(progressEvent('evaluate', 0, total, 0, `pass@1, ${problems.length} problems x k ${k}`));
  const blocks: EvalBlock[] = [];
  for (const [n, nmax] of nmaxList.entries()) {
    const episodes: Rollout['episode'][] = [];
    const rewards: number[] = [];
    for (const [c, chunk] of chunks.entries()) {
      if (hooks.shouldStop()) return null;
      const result = await hooks.exclusive(() =>
        evaluateProblems(
          sampler,
          chunk.flatMap((p) => Array.from({ length: k }, () => p)),
          {
            episode: { format: TOOL_FORMATS[limits.format], nmax, maxResponseTokens: limits.maxResponseTokens, maxOutputChars: limits.maxOutputChars },
            sandbox: hooks.sandbox,
            runOptions: sandboxRunOptions(limits),
            temperature,
            seed: chunkSeeds[c],
          },
        ),
      );
      episodes.push(...result.rollouts.map((r) => r.episode));
      rewards.push(...result.rewards);
      const done = n * chunks.length + c + 1;
      const through = Math.min((c + 1) * perChunk, problems.length);
      hooks.emit(progressEvent('evaluate', done, total, performance.now() - started, `Nmax ${nmax}: ${through}/${problems.length} problems`));
      await hooks.yieldToEvents();
    }
    blocks.push(evalBlock(nmax, problems, k, episodes, rewards));
  }
  return {
    checkpoint: request.label,
    format: limits.format,
    problems: problems.length,
    k,
    temperature,
    topP,
    seed,
    maxResponseTokens: limits.maxResponseTokens,
    maxOutputChars: limits.maxOutputChars,
    wallSeconds: (performance.now() - started) / 1000,
    blocks,
  };
}

function checkRequest(request: PassAtOneSettings & { label: string }): void {
  if (typeof request !== 'object' || request === null) throw new Error('the evaluation needs a request object');
  const errors = Object.values(passAtOneSettingsErrors(request));
  if (typeof request.label !== 'string') errors.push('label must be a string');
  if (errors.length > 0) throw new Error(`invalid evaluation settings: ${errors.join('; ')}`);
}
