/**
 * Held-out evaluation: one rollout per problem at a given temperature (0 = greedy) and
 * inference Nmax, scored by the strict answer check.
 */
import type { GPT } from '../model/gpt';
import { Episode, type EpisodeConfig } from '../rollout/episode';
import { formatPrompt } from '../tasks/prompt';
import type { Problem } from '../tasks/problem';
import { answerReward } from '../tasks/reward';
import type { PythonSandbox, RunOptions } from '../sandbox/protocol';
import { Random } from '../random';
import { encode } from '../tokenizer';
import { generateRollouts, type Rollout } from '../rollout/rollout';

export interface EvaluationResult {
  accuracy: number;
  byTier: Record<string, number>;
  codeCallFrequency: number;
  rollouts: Rollout[];
  rewards: number[];
}

export async function evaluateProblems(
  model: GPT,
  problems: Problem[],
  settings: { episode: EpisodeConfig; sandbox: PythonSandbox; runOptions: RunOptions; temperature?: number; seed?: number },
): Promise<EvaluationResult> {
  const { rollouts } = await generateRollouts(
    model,
    problems.map((p) => new Episode(encode(formatPrompt(p)), settings.episode)),
    {
      temperature: settings.temperature ?? 0,
      rng: new Random(settings.seed ?? 0),
      sandbox: settings.sandbox,
      runOptions: settings.runOptions,
    },
  );
  const rewards = rollouts.map((r, i) => answerReward(r.episode.responseText(), r.episode.endedWithEos, problems[i]));
  const tiers = new Map<string, number[]>();
  problems.forEach((p, i) => tiers.set(p.tier, [...(tiers.get(p.tier) ?? []), rewards[i]]));
  const average = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    accuracy: average(rewards),
    byTier: Object.fromEntries([...tiers].map(([tier, rs]) => [tier, average(rs)])),
    codeCallFrequency: average(rollouts.map((r) => (r.episode.calls.some((c) => c.executed) ? 1 : 0))),
    rollouts,
    rewards,
  };
}
