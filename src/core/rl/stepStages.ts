/**
 * Slow motion through one RL step: what each stage of `Trainer.trainStep` produced, as plain data,
 * for one group of answers (the lab shows it stage by stage). The trainer hands a snapshot to its
 * observer after each stage and waits for it before going on; the observer reads, it never steers,
 * so a watched step equals an unwatched one.
 */
import { formatToolOutput } from '../rollout/episode';
import type { Algorithm } from '../experiment';
import type { Rollout } from '../rollout/rollout';
import type { StepMetrics } from '../metrics/stepMetrics';
import type { Problem } from '../tasks/problem';
import { decode } from '../tokenizer';
import { meanOverPolicyTokens, type AdvantageParts, type Credit } from './creditAssignment';
import { rolloutSample, type SampleSegment } from '../rollout/rolloutSample';

export const STEP_STAGES = ['rollouts', 'python', 'rewards', 'advantages', 'update'] as const;
export type StepStageName = (typeof STEP_STAGES)[number];

/** One code call of an answer: the code and what the model read back (null: the fence was not run). */
export interface StageCall {
  code: string;
  output: string | null;
  ok: boolean | null;
}

/** One token of an answer with its advantage (0 on environment tokens, which carry no loss). */
export interface AdvantageToken {
  text: string;
  policy: boolean;
  advantage: number;
}

export interface StageAnswer {
  segments: SampleSegment[];
  calls: StageCall[];
  /** From the rewards stage on. */
  reward: number | null;
  /** Mean advantage over its policy tokens, from the advantages stage on; null while unknown or dropped by the filter. */
  advantage: number | null;
  /** Per token, from the advantages stage on, for a kept answer. */
  tokens: AdvantageToken[] | null;
  /** What `advantage` is made of, (reward - baseline - shift) / scale, when it is known. */
  parts: AdvantageParts | null;
}

export interface StepStage {
  stage: StepStageName;
  step: number;
  /** How advantages are made: the baseline is the group's mean reward, or (ppo) the critic's estimate. */
  algorithm: Algorithm;
  /** The group shown: the first the filter keeps (it has advantages to show), else the first. */
  group: {
    index: number;
    count: number;
    prompt: string;
    expected: number;
    answers: StageAnswer[];
    /** The group's mean reward (the baseline reinforce++ and GRPO subtract), from the rewards stage on. */
    meanReward: number | null;
    /** Whether the group filter kept the group, from the advantages stage on. */
    kept: boolean | null;
  };
  /** The step's figures after the update (update stage only). */
  metrics: StepMetrics | null;
}

export type StepObserver = (stage: StepStage) => Promise<void>;

/**
 * Told which stage a step is in as it moves (the lab's loop diagram while training): 'rollouts' while
 * the batch writes, 'python' while code of one of its answers runs meanwhile, then each later stage
 * as it starts. It only reads, and is called at every token step: it must be cheap.
 */
export type StepStageListener = (stage: StepStageName) => void;

/** Builds each stage's snapshot of the shown group from what the step has produced so far. */
export class StepStageView {
  private readonly first: number;
  private readonly size: number;
  /** Per answer of the shown group, per call: the tool output the model read back. */
  private readonly outputs: (string | null)[][];
  private credit: Pick<Credit, 'advantages' | 'parts'> | null = null;
  private kept = false;

  constructor(
    private readonly step: number,
    private readonly algorithm: Algorithm,
    private readonly prompts: string[],
    private readonly problems: Problem[],
    private readonly rollouts: Rollout[],
    private readonly rewards: number[],
    private readonly passing: boolean[],
    maxOutputChars: number,
  ) {
    this.size = rollouts.length / passing.length;
    const index = Math.max(0, passing.indexOf(true));
    this.first = index * this.size;
    this.outputs = rollouts.slice(this.first, this.first + this.size).map((r) =>
      r.episode.calls.map((c) => (c.executed && c.result ? formatToolOutput(c.result, maxOutputChars) : null)),
    );
  }

  /** The shown group's advantages, given the kept rollouts' credit (in the order of `keptIndices`). */
  setCredit(keptIndices: number[], credit: Credit): void {
    const position = keptIndices.indexOf(this.first);
    this.kept = position >= 0;
    const end = position + this.size;
    this.credit = this.kept ? { advantages: credit.advantages.slice(position, end), parts: credit.parts.slice(position, end) } : null;
  }

  snapshot(stage: StepStageName, metrics: StepMetrics | null = null): StepStage {
    const reached = STEP_STAGES.indexOf(stage);
    const rewarded = reached >= STEP_STAGES.indexOf('rewards');
    const credited = reached >= STEP_STAGES.indexOf('advantages');
    const groupRewards = this.rewards.slice(this.first, this.first + this.size);
    const answers = groupRewards.map((reward, j): StageAnswer => {
      const i = this.first + j;
      const sample = rolloutSample(this.step, this.prompts[i], this.problems[i], this.rollouts[i], reward);
      const credit = credited ? this.credit : null;
      const advantages = credit ? credit.advantages[j] : null;
      return {
        segments: sample.segments,
        calls: sample.calls.map((c, k) => ({ code: c.code, output: this.outputs[j][k], ok: c.ok })),
        reward: rewarded ? reward : null,
        advantage: advantages ? meanOverPolicyTokens(advantages, this.rollouts[i].episode.policyMask) : null,
        tokens: advantages ? advantageTokens(this.rollouts[i], advantages) : null,
        parts: credit ? { ...credit.parts[j] } : null,
      };
    });
    const problem = this.problems[this.first];
    return {
      stage,
      step: this.step,
      algorithm: this.algorithm,
      group: {
        index: this.first / this.size,
        count: this.passing.length,
        prompt: this.prompts[this.first],
        expected: problem.answer,
        answers,
        meanReward: rewarded ? groupRewards.reduce((a, b) => a + b, 0) / this.size : null,
        kept: credited ? this.kept : null,
      },
      metrics: metrics && { ...metrics },
    };
  }
}

function advantageTokens(rollout: Rollout, advantages: Float32Array): AdvantageToken[] {
  const { tokens, policyMask } = rollout.episode;
  return tokens.map((id, t) => ({ text: decode([id]), policy: policyMask[t] === 1, advantage: policyMask[t] === 1 ? advantages[t] : 0 }));
}
