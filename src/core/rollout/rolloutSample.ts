/**
 * A decoded rollout for people: samples.jsonl, the lab's rollout inspector and the export.
 * Environment spans (tool output) are kept apart from policy text, since they carry no loss.
 */
import type { Problem } from '../tasks/problem';
import { decode } from '../tokenizer';
import type { Rollout } from './rollout';

export interface SampleSegment {
  /** policy: sampled by the model (trained on); env: inserted by the sandbox (not trained on). */
  kind: 'policy' | 'env';
  text: string;
}

export interface RolloutSample {
  step: number;
  prompt: string;
  tier: string;
  expected: number;
  response: string;
  segments: SampleSegment[];
  reward: number;
  endedWithEos: boolean;
  calls: { code: string; executed: boolean; ok: boolean | null; errorType: string | null }[];
}

/** A response's text in runs of policy and environment tokens. */
export function responseSegments(tokens: readonly number[], policyMask: readonly number[]): SampleSegment[] {
  const segments: SampleSegment[] = [];
  let start = 0;
  for (let i = 1; i <= tokens.length; i++) {
    if (i === tokens.length || policyMask[i] !== policyMask[start]) {
      segments.push({ kind: policyMask[start] === 1 ? 'policy' : 'env', text: decode(tokens.slice(start, i)) });
      start = i;
    }
  }
  return segments;
}

export function rolloutSample(step: number, prompt: string, problem: Problem, rollout: Rollout, reward: number): RolloutSample {
  const { tokens, policyMask, calls, endedWithEos } = rollout.episode;
  const segments = responseSegments(tokens, policyMask);
  return {
    step,
    prompt,
    tier: problem.tier,
    expected: problem.answer,
    response: decode(tokens),
    segments,
    reward,
    endedWithEos,
    calls: calls.map((c) => ({
      code: c.code,
      executed: c.executed,
      ok: c.result ? c.result.ok : null,
      errorType: c.result?.error?.type ?? null,
    })),
  };
}

/**
 * Which rollouts the inspector and samples.jsonl keep: member 0 of each group, then member 1 of
 * each, and so on, so `wanted` samples show min(wanted, groups) different prompts.
 */
export function inspectorSampleIndices(total: number, groupSize: number, wanted: number): number[] {
  const groups = Math.ceil(total / groupSize);
  const picks: number[] = [];
  for (let i = 0; picks.length < Math.min(wanted, total); i++) {
    const index = (i % groups) * groupSize + Math.floor(i / groups);
    if (index < total) picks.push(index);
  }
  return picks;
}
