/**
 * Held-out evaluation as ReTool reports it: k samples per test problem, pass@1 = the share of a
 * problem's k samples that are correct, averaged over problems; overall with its standard error,
 * by difficulty tier, by kind, by family and by depth, and with the code-use figures, one block per
 * inference Nmax.
 */
import { episodeConfig, type Episode, type EpisodeLimits } from '../rollout/episode';
import { sandboxRunOptions } from '../experiment';
import { codeUseFigures } from '../metrics/codeUse';
import { meanOrNull, standardErrorOfMean } from '../metrics/means';
import type { GPT } from '../model/gpt';
import { Random } from '../random';
import { evaluateProblems } from './evaluate';
import type { PythonSandbox, RunOptions } from '../sandbox/protocol';
import { KINDS, MAX_DEPTH, problemDepth, TIERS, type Kind, type Problem, type Tier } from '../tasks/problem';
import type { EvalBlock, EvalReport, PassAtOneSettings } from './evalReport';
import { withNucleusFilter } from './nucleus';

export interface EvalSettings extends PassAtOneSettings {
  /** The episode without its Nmax, which each block sets. */
  episode: EpisodeLimits;
  sandbox: PythonSandbox;
  runOptions: RunOptions;
}

/**
 * What a caller does around the chunks; the CLI passes none. The lab takes the backend's work
 * queue for each chunk, reports progress and lets a cancel in between.
 */
export interface ChunkHooks {
  /** Runs one chunk's sampling. */
  exclusive?<T>(work: () => Promise<T>): Promise<T>;
  /** Before the first chunk (done 0) and after each: chunks done of total, the block's Nmax, its problems done. */
  progress?(at: { done: number; total: number; nmax: number; problemsDone: number }): Promise<void> | void;
  /** Asked before each chunk; true stops the evaluation, which then gives null. */
  shouldStop?(): boolean;
}

/**
 * Per-problem pass@1 from rewards laid out problem-major (problem 0's k samples, then problem 1's,
 * ...): the mean of each problem's k rewards.
 */
export function passAtOneByProblem(rewards: number[], k: number): number[] {
  if (!Number.isInteger(k) || k < 1) throw new Error(`k must be a whole number >= 1, got ${k}`);
  if (rewards.length % k !== 0) throw new Error(`${rewards.length} rewards do not split into groups of k = ${k}`);
  const perProblem: number[] = [];
  for (let p = 0; p < rewards.length / k; p++) perProblem.push(meanOrNull(rewards.slice(p * k, (p + 1) * k))!);
  return perProblem;
}

/** One Nmax's block from problem-major episodes and rewards (k per problem). */
export function evalBlock(
  nmax: number,
  problems: Problem[],
  k: number,
  episodes: Parameters<typeof codeUseFigures>[0],
  rewards: number[],
): EvalBlock {
  if (rewards.length !== problems.length * k) throw new Error(`${rewards.length} rewards for ${problems.length} problems x k = ${k}`);
  const perProblem = passAtOneByProblem(rewards, k);
  const over = (keep: (p: Problem) => boolean) => meanOrNull(perProblem.filter((_, i) => keep(problems[i])));
  const byTier = Object.fromEntries(TIERS.map((tier) => [tier, over((p) => p.tier === tier)])) as Record<Tier, number | null>;
  const byKind = Object.fromEntries(KINDS.map((kind) => [kind, over((p) => p.kind === kind)])) as Record<Kind, number | null>;
  const families = [...new Set(problems.map((p) => p.family))].sort();
  const byFamily = Object.fromEntries(families.map((family) => [family, over((p) => p.family === family)!]));
  const byDepth = Array.from({ length: MAX_DEPTH }, (_, d) => over((p) => problemDepth(p) === d + 1));
  return {
    nmax,
    samples: rewards.length,
    'pass@1': meanOrNull(perProblem)!,
    standardError: standardErrorOfMean(perProblem),
    byTier,
    byKind,
    byFamily,
    byDepth,
    perProblem,
    ...codeUseFigures(episodes, rewards, problems.flatMap((p) => Array<Problem>(k).fill(p))),
  };
}

/** Answers sampled in one batch: whole problems with their k samples, about this many. */
export const CHUNK_ROWS = 64;

/**
 * Samples k responses per problem at each Nmax (nucleus sampling unless topP is 1) and scores
 * them; null when hooks.shouldStop stopped it. The one pass@1 path of `npm run eval` and the lab:
 * a block is drawn in chunks of about CHUNK_ROWS answers, each with a seed of its own, the same for
 * every Nmax (blocks differ by the budget, not by the draws), so both give the same draws for the
 * same seed, and the lab can report progress and cancel between chunks.
 */
export async function evaluatePassAtOne(model: GPT, problems: Problem[], settings: EvalSettings, hooks: ChunkHooks = {}): Promise<EvalBlock[] | null> {
  const { nmaxList, k, temperature, topP } = settings;
  const sampler = withNucleusFilter(model, temperature, topP);
  const perChunk = Math.max(1, Math.floor(CHUNK_ROWS / k));
  const chunks = Array.from({ length: Math.ceil(problems.length / perChunk) }, (_, c) => problems.slice(c * perChunk, (c + 1) * perChunk));
  const seeds = new Random(settings.seed);
  const chunkSeeds = chunks.map((_, c) => seeds.fork(c).seed());
  const total = nmaxList.length * chunks.length;
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => (hooks.exclusive ? hooks.exclusive(work) : work());
  await hooks.progress?.({ done: 0, total, nmax: nmaxList[0], problemsDone: 0 });
  const blocks: EvalBlock[] = [];
  for (const [n, nmax] of nmaxList.entries()) {
    const episodes: Episode[] = [];
    const rewards: number[] = [];
    for (const [c, chunk] of chunks.entries()) {
      if (hooks.shouldStop?.()) return null;
      const result = await exclusive(() =>
        evaluateProblems(
          sampler,
          chunk.flatMap((p) => Array.from({ length: k }, () => p)),
          { episode: episodeConfig(settings.episode, nmax), sandbox: settings.sandbox, runOptions: settings.runOptions, temperature, seed: chunkSeeds[c] },
        ),
      );
      episodes.push(...result.rollouts.map((r) => r.episode));
      rewards.push(...result.rewards);
      await hooks.progress?.({ done: n * chunks.length + c + 1, total, nmax, problemsDone: Math.min((c + 1) * perChunk, problems.length) });
    }
    blocks.push(evalBlock(nmax, problems, k, episodes, rewards));
  }
  return blocks;
}

/**
 * `npm run eval`'s report, which the lab's evaluation gives too: `model` (named `label`) on
 * `problems`, sampled with `limits` (the checkpoint's: checkpointLimits.ts). Null when stopped.
 */
export async function passAtOneReport(
  model: GPT,
  problems: Problem[],
  request: PassAtOneSettings & { label: string },
  limits: EpisodeLimits & { sandboxTimeoutMs: number },
  sandbox: PythonSandbox,
  hooks: ChunkHooks = {},
): Promise<EvalReport | null> {
  const { nmaxList, k, temperature, topP, seed } = request;
  const started = performance.now();
  const episode = { format: limits.format, maxResponseTokens: limits.maxResponseTokens, maxOutputChars: limits.maxOutputChars };
  const blocks = await evaluatePassAtOne(model, problems, { nmaxList, k, temperature, topP, seed, episode, sandbox, runOptions: sandboxRunOptions(limits) }, hooks);
  if (blocks === null) return null;
  return {
    checkpoint: request.label,
    format: episode.format,
    problems: problems.length,
    k,
    temperature,
    topP,
    seed,
    maxResponseTokens: episode.maxResponseTokens,
    maxOutputChars: episode.maxOutputChars,
    wallSeconds: (performance.now() - started) / 1000,
    problemDepths: problems.map(problemDepth),
    blocks,
  };
}
