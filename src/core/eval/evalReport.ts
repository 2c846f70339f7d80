/**
 * What a pass@1 evaluation takes and gives, as types only (no tfjs), so the lab's page can name
 * them: the sampling settings of `npm run eval` and the report it writes, which the lab's
 * evaluation gives too (passAtOne.ts makes both).
 */
import type { ToolFormatName } from '../rollout/formats';
import type { CodeUseFigures } from '../metrics/codeUse';
import type { Kind, Tier } from '../tasks/problem';

/** The settings of `npm run eval` and of the lab's evaluation panel. */
export interface PassAtOneSettings {
  nmaxList: number[];
  /** Samples per problem. */
  k: number;
  temperature: number;
  topP: number;
  seed: number;
}

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
  /**
   * pass@1 over the problems of each depth (problemDepth: the calls a step-by-step solution takes),
   * index d - 1 up to MAX_DEPTH, null for a depth with none (and in reports from before it).
   */
  byDepth: (number | null)[];
  /** pass@1 of each problem, in the problem set's order: what pairs two arms (pairedDifference). */
  perProblem: number[];
}

/** The report `npm run eval` writes and the lab keeps, field for field; `checkpoint` names the model evaluated. */
export interface EvalReport {
  checkpoint: string;
  format: ToolFormatName;
  problems: number;
  k: number;
  temperature: number;
  topP: number;
  seed: number;
  maxResponseTokens: number;
  maxOutputChars: number;
  wallSeconds: number;
  /**
   * The depth of each problem, in perProblem's order: what splits a paired gain by depth
   * (evalMatrix.ts). Empty in reports from before it.
   */
  problemDepths: number[];
  blocks: EvalBlock[];
}

/** A pass@1 evaluation (the lab's evaluation panel) of a model at a step. */
export interface PassAtOneResult {
  step: number;
  report: EvalReport;
  evaluatedAt: number;
}
