/**
 * Held-out evaluation as ReTool reports it: k samples per test problem, pass@1 = the share of a
 * problem's k samples that are correct, averaged over problems; overall with its standard error,
 * by difficulty tier, by kind and by family, and with the code-use figures, one block per
 * inference Nmax.
 */
import type { EpisodeConfig } from '../env/episode';
import { codeUseFigures, type CodeUseFigures } from '../metrics/codeUse';
import { meanOrNull } from '../metrics/means';
import type { GPT } from '../model/gpt';
import { evaluateProblems } from '../rl/evaluate';
import type { PythonSandbox, RunOptions } from '../sandbox/protocol';
import { KINDS, TIERS, type Kind, type Problem, type Tier } from '../tasks/problem';
import { withNucleusFilter } from './nucleus';

export interface EvalBlock extends CodeUseFigures {
  nmax: number;
  /** Responses scored: problems x k. */
  samples: number;
  'pass@1': number;
  /**
   * Standard error of pass@1 over problems: the sample standard deviation of the per-problem pass@1
   * over the square root of the number of problems. Two blocks' difference has a standard error of
   * at most sqrt(a^2 + b^2) (less when both score the same problems and agree on them).
   */
  standardError: number;
  /** pass@1 over each tier's problems (null for a tier with none). */
  byTier: Record<Tier, number | null>;
  /** pass@1 over each kind's problems (null for a kind with none). */
  byKind: Record<Kind, number | null>;
  /** pass@1 over each family's problems, families in name order. */
  byFamily: Record<string, number>;
  /** pass@1 of each problem, in the problem set's order: what pairs two arms (pairedDifference). */
  perProblem: number[];
}

/** Sample standard deviation over sqrt(n); 0 for fewer than two values. */
export function standardErrorOfMean(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = meanOrNull(xs)!;
  const variance = xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
  return Math.sqrt(variance / xs.length);
}

export interface EvalSettings {
  nmaxList: number[];
  k: number;
  temperature: number;
  topP: number;
  seed: number;
  /** The episode without its Nmax, which each block sets. */
  episode: Omit<EpisodeConfig, 'nmax'>;
  sandbox: PythonSandbox;
  runOptions: RunOptions;
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
  return {
    nmax,
    samples: rewards.length,
    'pass@1': meanOrNull(perProblem)!,
    standardError: standardErrorOfMean(perProblem),
    byTier,
    byKind,
    byFamily,
    perProblem,
    ...codeUseFigures(episodes, rewards),
  };
}

/** Samples k responses per problem at each Nmax (nucleus sampling unless topP is 1) and scores them. */
export async function evaluatePassAtOne(model: GPT, problems: Problem[], settings: EvalSettings): Promise<EvalBlock[]> {
  const { k, temperature, topP } = settings;
  const sampler = topP < 1 ? withNucleusFilter(model, temperature, topP) : model;
  const repeated = problems.flatMap((p) => Array.from({ length: k }, () => p));
  const blocks: EvalBlock[] = [];
  for (const nmax of settings.nmaxList) {
    // The same seed for every Nmax: the blocks differ by the budget, not by the draws' stream.
    const { rollouts, rewards } = await evaluateProblems(sampler, repeated, {
      episode: { ...settings.episode, nmax },
      sandbox: settings.sandbox,
      runOptions: settings.runOptions,
      temperature,
      seed: settings.seed,
    });
    blocks.push(evalBlock(nmax, problems, k, rollouts.map((r) => r.episode), rewards));
  }
  return blocks;
}
