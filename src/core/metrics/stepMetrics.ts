/**
 * The per-step figures every consumer reads (metrics.jsonl, the lab's charts, the export, the
 * scaling-law statistics). A figure not measured at a step is null (e.g. testAccuracy between
 * evaluations, the update figures at step 0).
 */
import type { Rollout } from '../rollout/rollout';
import { KINDS, type Kind, type Problem } from '../tasks/problem';
import { codeUseFigures, type CodeUseProblem } from './codeUse';
import { mean, meanOrNull } from './means';
import { unclaimedToolAnswerShare } from './unclaimedAnswers';

export interface StepSeconds {
  generate: number;
  execute: number;
  update: number;
}

export interface StepMetrics {
  step: number;
  /** Share of the step's sampled responses that scored 1. */
  accuracy: number | null;
  /** Greedy accuracy on the held-out test set (every testEvery steps and at step 0). */
  testAccuracy: number | null;
  /** Share of responses with at least one executed code call. */
  codeCallFrequency: number | null;
  callsPerResponse: number | null;
  /** Responses with 0, 1, ..., 7 executed calls, then 8 or more (codeUse.ts); an older record's may be longer or shorter. */
  callsHistogram: number[] | null;
  /** callsPerResponse over each depth's responses, index d - 1 for depth d (codeUse.ts); null where none. */
  callsPerResponseByDepth: (number | null)[] | null;
  /** Mean response tokens, policy and environment. */
  responseLength: number | null;
  /** Mean policy (sampled) tokens per response. */
  policyTokens: number | null;
  /** Share of executed calls that raised, timed out or hit a limit. */
  codeErrorRate: number | null;
  /** KL of the rollouts' policy to the reference (the start model), k1 at the sampled tokens. */
  kl: number | null;
  entropy: number | null;
  clipFraction: number | null;
  /** KL(old || new) of the update (k3), mean over the step's updates. */
  approxKl: number | null;
  valueLoss: number | null;
  /** Global gradient norm before clipping, mean over the step's updates. */
  gradNorm: number | null;
  /** Share of groups kept by the group filter. */
  filterPassRate: number | null;
  seconds: StepSeconds | null;
  /** Tokens generated per second of generation time. */
  tokensPerSecond: number | null;
  /** Code-use figures as ReTool and ZeroTIR report them; see codeUse.ts for each definition. */
  codeRatio: number | null;
  codeLines: number | null;
  correctCodeCount: number | null;
  codePassRate: number | null;
  invocationPosition: number | null;
  singleCallShare: number | null;
  /** singleCallShare over each depth's responses, index d - 1 for depth d (codeUse.ts); null where none. */
  singleCallShareByDepth: (number | null)[] | null;
  /** Failed calls whose repair the correct answer uses (codeUse.ts). */
  selfCorrections: number | null;
  /** Share of responses with at least one such self-correction. */
  selfCorrectionShare: number | null;
  /** Among responses whose tool output printed the right answer, the share that earned nothing (unclaimedAnswers.ts). */
  unclaimedToolAnswerShare: number | null;
  /** Batch accuracy per kind of problem (null for a kind the step did not draw). */
  accuracyByKind: Record<Kind, number | null> | null;
  /** Batch accuracy per problem family drawn at the step. */
  accuracyByFamily: Record<string, number> | null;
}

/** Names of the scalar figures, in a fixed order (CSV columns, summaries, charts). */
export const SCALAR_METRICS = [
  'accuracy',
  'testAccuracy',
  'codeCallFrequency',
  'callsPerResponse',
  'responseLength',
  'policyTokens',
  'codeErrorRate',
  'kl',
  'entropy',
  'clipFraction',
  'approxKl',
  'valueLoss',
  'gradNorm',
  'filterPassRate',
  'tokensPerSecond',
  'codeRatio',
  'codeLines',
  'correctCodeCount',
  'codePassRate',
  'invocationPosition',
  'singleCallShare',
  'selfCorrections',
  'selfCorrectionShare',
  'unclaimedToolAnswerShare',
] as const;
export type ScalarMetric = (typeof SCALAR_METRICS)[number];

export function emptyStepMetrics(step: number): StepMetrics {
  return {
    step,
    accuracy: null,
    testAccuracy: null,
    codeCallFrequency: null,
    callsPerResponse: null,
    callsHistogram: null,
    callsPerResponseByDepth: null,
    responseLength: null,
    policyTokens: null,
    codeErrorRate: null,
    kl: null,
    entropy: null,
    clipFraction: null,
    approxKl: null,
    valueLoss: null,
    gradNorm: null,
    filterPassRate: null,
    seconds: null,
    tokensPerSecond: null,
    codeRatio: null,
    codeLines: null,
    correctCodeCount: null,
    codePassRate: null,
    invocationPosition: null,
    singleCallShare: null,
    singleCallShareByDepth: null,
    selfCorrections: null,
    selfCorrectionShare: null,
    unclaimedToolAnswerShare: null,
    accuracyByKind: null,
    accuracyByFamily: null,
  };
}

/** Mean reward per kind (null where none was drawn) and per family drawn, in a fixed key order. */
export function accuracyByGroup(problems: Pick<Problem, 'kind' | 'family'>[], rewards: number[]) {
  const byKind = Object.fromEntries(KINDS.map((kind) => [kind, meanOrNull(rewards.filter((_, i) => problems[i].kind === kind))])) as Record<
    Kind,
    number | null
  >;
  const families = [...new Set(problems.map((p) => p.family))].sort();
  const byFamily = Object.fromEntries(families.map((f) => [f, mean(rewards.filter((_, i) => problems[i].family === f))]));
  return { accuracyByKind: byKind, accuracyByFamily: byFamily };
}

/** The figures that depend only on the rollouts, their rewards and their problems (answers and depths). */
export function rolloutFigures(rollouts: Rollout[], rewards: number[], problems: CodeUseProblem[]) {
  const n = rollouts.length;
  const executed = rollouts.map((r) => r.episode.calls.filter((c) => c.executed));
  const allCalls = executed.flat();
  const codeUse = codeUseFigures(rollouts.map((r) => r.episode), rewards, problems);
  return {
    accuracy: mean(rewards),
    codeCallFrequency: executed.filter((c) => c.length > 0).length / n,
    callsPerResponse: allCalls.length / n,
    callsHistogram: codeUse.callsHistogram,
    callsPerResponseByDepth: codeUse.callsPerResponseByDepth,
    responseLength: mean(rollouts.map((r) => r.episode.tokens.length)),
    policyTokens: mean(rollouts.map((r) => r.episode.policyMask.reduce((a, b) => a + b, 0))),
    codeErrorRate: allCalls.length === 0 ? 0 : allCalls.filter((c) => !c.result?.ok).length / allCalls.length,
    codeRatio: codeUse.codeRatio,
    codeLines: codeUse.codeLines,
    correctCodeCount: codeUse.correctCodeCount,
    codePassRate: codeUse.codePassRate,
    invocationPosition: codeUse.invocationPosition,
    singleCallShare: codeUse.singleCallShare,
    singleCallShareByDepth: codeUse.singleCallShareByDepth,
    selfCorrections: codeUse.selfCorrections,
    selfCorrectionShare: codeUse.selfCorrectionShare,
    unclaimedToolAnswerShare: unclaimedToolAnswerShare(rollouts.map((r) => r.episode), problems.map((p) => p.answer), rewards),
  };
}
