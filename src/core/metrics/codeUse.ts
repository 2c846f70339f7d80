/**
 * How responses use code, measured as ReTool and ZeroTIR report it, per response and over a set of
 * responses (a training step, or an evaluation block). Only closed code blocks count as code (a
 * block cut by EOS or the length cap is not a call); only executed calls count as tool use.
 *
 * - codeRatio: share of responses with at least one closed code block, executed or not (ReTool's
 *   "code ratio"; at Nmax 0 nothing runs, yet the model may still write code).
 * - codeLines: lines of code per response, over all code blocks.
 * - correctCodeCount: executed calls that ran without error (ReTool counts these over the test set).
 * - codePassRate: share of tool-using responses whose last executed call ran without error (ReTool
 *   judges the code a response ended with).
 * - invocationPosition: where the first code block's opening fence starts, as a fraction of the
 *   response's tokens, averaged over responses with code (ReTool: calls move earlier during RL).
 * - callsPerResponse and callsHistogram: executed calls per response.
 * - singleCallShare: among correct responses with an executed call, the share with exactly one
 *   (ZeroTIR: above 90%).
 * - selfCorrections: errored executed calls whose next executed call in the same response succeeded;
 *   selfCorrectedResponses and selfCorrectionShare: the responses with at least one, as a count and
 *   as a share of all responses (ReTool: self-correction emerges after an interpreter error).
 */
import type { Episode } from '../env/episode';
import { meanOrNull } from './means';

/** What one response did with code. */
export interface ResponseCodeUse {
  codeBlocks: number;
  codeLines: number;
  executedCalls: number;
  correctCalls: number;
  /** Null when no call was executed. */
  lastCallOk: boolean | null;
  /** Null when the response has no code block. */
  invocationPosition: number | null;
  selfCorrections: number;
}

/** The code-use figures over a set of responses; a share with nothing to count is null. */
export interface CodeUseFigures {
  codeRatio: number | null;
  codeLines: number | null;
  correctCodeCount: number;
  codePassRate: number | null;
  invocationPosition: number | null;
  callsPerResponse: number | null;
  /** Counts of responses with 0, 1, 2, ... executed calls. */
  callsHistogram: number[];
  singleCallShare: number | null;
  selfCorrections: number;
  selfCorrectedResponses: number;
  selfCorrectionShare: number | null;
}

type EpisodeCode = Pick<Episode, 'tokens' | 'calls'>;

export function responseCodeUse(episode: EpisodeCode): ResponseCodeUse {
  const executed = episode.calls.filter((c) => c.executed);
  const ran = executed.map((c) => c.result?.ok === true);
  let selfCorrections = 0;
  for (let i = 0; i + 1 < ran.length; i++) if (!ran[i] && ran[i + 1]) selfCorrections++;
  const first = episode.calls[0];
  return {
    codeBlocks: episode.calls.length,
    codeLines: episode.calls.reduce((n, c) => n + countLines(c.code), 0),
    executedCalls: executed.length,
    correctCalls: ran.filter(Boolean).length,
    lastCallOk: ran.length === 0 ? null : ran[ran.length - 1],
    invocationPosition: first === undefined || episode.tokens.length === 0 ? null : first.start / episode.tokens.length,
    selfCorrections,
  };
}

/** Non-empty lines, so a blank line the model leaves before the closing fence is not code. */
function countLines(code: string): number {
  return code.split('\n').filter((line) => line.trim() !== '').length;
}

/** `rewards[i]` is the outcome reward (1 correct, 0 not) of `episodes[i]`. */
export function codeUseFigures(episodes: EpisodeCode[], rewards: number[]): CodeUseFigures {
  if (episodes.length !== rewards.length) throw new Error(`${episodes.length} episodes but ${rewards.length} rewards`);
  const uses = episodes.map(responseCodeUse);
  const histogram: number[] = [];
  for (const u of uses) histogram[u.executedCalls] = (histogram[u.executedCalls] ?? 0) + 1;
  const toolUsing = uses.filter((u) => u.executedCalls > 0);
  const correctToolUsing = uses.filter((u, i) => u.executedCalls > 0 && rewards[i] === 1);
  const positions = uses.flatMap((u) => (u.invocationPosition === null ? [] : [u.invocationPosition]));
  return {
    codeRatio: shareOrNull(uses.filter((u) => u.codeBlocks > 0).length, uses.length),
    codeLines: meanOrNull(uses.map((u) => u.codeLines)),
    correctCodeCount: sum(uses.map((u) => u.correctCalls)),
    codePassRate: shareOrNull(toolUsing.filter((u) => u.lastCallOk).length, toolUsing.length),
    invocationPosition: meanOrNull(positions),
    callsPerResponse: meanOrNull(uses.map((u) => u.executedCalls)),
    callsHistogram: Array.from(histogram, (c) => c ?? 0),
    singleCallShare: shareOrNull(correctToolUsing.filter((u) => u.executedCalls === 1).length, correctToolUsing.length),
    selfCorrections: sum(uses.map((u) => u.selfCorrections)),
    selfCorrectedResponses: uses.filter((u) => u.selfCorrections > 0).length,
    selfCorrectionShare: shareOrNull(uses.filter((u) => u.selfCorrections > 0).length, uses.length),
  };
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

function shareOrNull(count: number, total: number): number | null {
  return total === 0 ? null : count / total;
}
