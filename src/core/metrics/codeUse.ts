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
 * - callsPerResponse: executed calls per response. callsHistogram: always CALLS_HISTOGRAM_BINS (9)
 *   counts, of responses with 0, 1, ..., 7 executed calls, the last bin "8 or more".
 * - singleCallShare: among correct responses with an executed call, the share with exactly one
 *   (ZeroTIR: above 90%).
 * - singleCallShareByDepth and callsPerResponseByDepth: the same two figures over the responses to
 *   problems of each depth (problemDepth: the calls a step-by-step solution takes), index d - 1 for
 *   depth d = 1..MAX_DEPTH, null where no response counts. A chain of depth 4 answered in one call
 *   is one program; answered in four, one call per step.
 * - selfCorrections (ReTool: self-correction emerges after an interpreter error), counted only when
 *   the repair is what the answer rests on. With executed calls c_1..c_m of a response:
 *     feeds(c_j) = c_j ran without error, and its stdout starts a line with the problem's answer
 *                  (`53`, or a chain cell's `53 True`: printedAnswerLine), or one of the numbers it
 *                  printed appears in the code of a later c_k with feeds(c_k) (a chain: `371 True`
 *                  printed, then `q = 371`, ... the answer);
 *                  numbers are matched whole, so a printed 3 is not the 3 of `33` or of `x3`;
 *     selfCorrections = #{ i : reward = 1, c_i raised, c_{i+1} ran, feeds(c_{i+1}) }.
 *   A repair in a wrong response, or one whose output nothing later uses, is not counted: an
 *   interpreter error retried into an unrelated success is not a correction.
 *   selfCorrectedResponses and selfCorrectionShare: the responses with at least one, as a count
 *   and as a share of all responses.
 */
import type { Episode, ToolCall } from '../rollout/episode';
import { MAX_DEPTH, problemDepth, type Problem } from '../tasks/problem';
import { meanOrNull } from './means';
import { printedAnswerLine } from './unclaimedAnswers';

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
  /** Repairs the final, correct answer uses (the file header's formula). */
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
  /** Responses with 0, 1, ..., 7 executed calls, then "8 or more": CALLS_HISTOGRAM_BINS counts. */
  callsHistogram: number[];
  singleCallShare: number | null;
  /** singleCallShare over each depth's responses: index d - 1 for depth d = 1..MAX_DEPTH. */
  singleCallShareByDepth: (number | null)[];
  /** callsPerResponse over each depth's responses: index d - 1 for depth d = 1..MAX_DEPTH. */
  callsPerResponseByDepth: (number | null)[];
  selfCorrections: number;
  selfCorrectedResponses: number;
  selfCorrectionShare: number | null;
}

/** Bins of callsHistogram: 0 to 7 calls, and the last for 8 or more. */
export const CALLS_HISTOGRAM_BINS = 9;
const LAST_BIN = CALLS_HISTOGRAM_BINS - 1;

/** A bin's label: its number of calls, the last "8+". */
export function callsBinLabel(bin: number): string {
  return bin === LAST_BIN ? `${LAST_BIN}+` : String(bin);
}

/**
 * Any histogram of calls (one recorded before the bins were fixed runs to the most calls seen) in
 * the CALLS_HISTOGRAM_BINS bins: counts past the last bin join it.
 */
export function binnedCallsHistogram(counts: number[]): number[] {
  const bins = new Array<number>(CALLS_HISTOGRAM_BINS).fill(0);
  counts.forEach((count, calls) => (bins[Math.min(calls, LAST_BIN)] += count));
  return bins;
}

type EpisodeCode = Pick<Episode, 'tokens' | 'calls'>;

/** What the figures need of a response's problem: its answer, and its kind and depth for problemDepth. */
export type CodeUseProblem = Pick<Problem, 'answer' | 'kind' | 'depth'>;

/** `reward` and `answer`: the response's outcome reward (1 correct) and its problem's answer. */
export function responseCodeUse(episode: EpisodeCode, reward: number, answer: number): ResponseCodeUse {
  const executed = episode.calls.filter((c) => c.executed);
  const ran = executed.map((c) => c.result?.ok === true);
  let selfCorrections = 0;
  if (reward === 1) {
    const feeds = callsFeedingAnswer(executed, answer);
    for (let i = 0; i + 1 < ran.length; i++) if (!ran[i] && ran[i + 1] && feeds[i + 1]) selfCorrections++;
  }
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

/** feeds(c_j) of the header for each executed call, decided from the last call back. */
function callsFeedingAnswer(executed: ToolCall[], answer: number): boolean[] {
  const feeds = executed.map(() => false);
  for (let j = executed.length - 1; j >= 0; j--) {
    const result = executed[j].result;
    if (result?.ok !== true) continue;
    if (printedAnswerLine(result.stdout, answer)) {
      feeds[j] = true;
      continue;
    }
    const printed = new Set(numbersIn(result.stdout));
    feeds[j] = executed.some((later, k) => k > j && feeds[k] && numbersIn(later.code).some((n) => printed.has(n)));
  }
  return feeds;
}

/**
 * The unsigned numbers written in a text, whole: not digits inside a name (`x2`) or a longer
 * number, so a printed 3 is not found in `3392`.
 */
function numbersIn(text: string): string[] {
  return text.match(/(?<![\w.])\d+(?:\.\d+)?(?![\w.])/g) ?? [];
}

/** Non-empty lines, so a blank line the model leaves before the closing fence is not code. */
function countLines(code: string): number {
  return code.split('\n').filter((line) => line.trim() !== '').length;
}

/** `rewards[i]` is the outcome reward (1 correct, 0 not) of `episodes[i]`, `problems[i]` its problem. */
export function codeUseFigures(episodes: EpisodeCode[], rewards: number[], problems: CodeUseProblem[]): CodeUseFigures {
  if (episodes.length !== rewards.length) throw new Error(`${episodes.length} episodes but ${rewards.length} rewards`);
  if (episodes.length !== problems.length) throw new Error(`${episodes.length} episodes but ${problems.length} problems`);
  const uses = episodes.map((e, i) => responseCodeUse(e, rewards[i], problems[i].answer));
  const depths = problems.map(depthOf);
  const histogram = new Array<number>(CALLS_HISTOGRAM_BINS).fill(0);
  for (const u of uses) histogram[Math.min(u.executedCalls, LAST_BIN)]++;
  const toolUsing = uses.filter((u) => u.executedCalls > 0);
  const positions = uses.flatMap((u) => (u.invocationPosition === null ? [] : [u.invocationPosition]));
  const selfCorrected = uses.filter((u) => u.selfCorrections > 0).length;
  const singleCallShare = (kept: (i: number) => boolean) => {
    const correctToolUsing = uses.filter((u, i) => kept(i) && u.executedCalls > 0 && rewards[i] === 1);
    return shareOrNull(correctToolUsing.filter((u) => u.executedCalls === 1).length, correctToolUsing.length);
  };
  const byDepth = <T>(figure: (depth: number) => T) => Array.from({ length: MAX_DEPTH }, (_, d) => figure(d + 1));
  return {
    codeRatio: shareOrNull(uses.filter((u) => u.codeBlocks > 0).length, uses.length),
    codeLines: meanOrNull(uses.map((u) => u.codeLines)),
    correctCodeCount: sum(uses.map((u) => u.correctCalls)),
    codePassRate: shareOrNull(toolUsing.filter((u) => u.lastCallOk).length, toolUsing.length),
    invocationPosition: meanOrNull(positions),
    callsPerResponse: meanOrNull(uses.map((u) => u.executedCalls)),
    callsHistogram: histogram,
    singleCallShare: singleCallShare(() => true),
    singleCallShareByDepth: byDepth((depth) => singleCallShare((i) => depths[i] === depth)),
    callsPerResponseByDepth: byDepth((depth) => meanOrNull(uses.filter((_, i) => depths[i] === depth).map((u) => u.executedCalls))),
    selfCorrections: sum(uses.map((u) => u.selfCorrections)),
    selfCorrectedResponses: selfCorrected,
    selfCorrectionShare: shareOrNull(selfCorrected, uses.length),
  };
}

/** A problem's depth, which must have its slot in the per-depth figures. */
function depthOf(problem: CodeUseProblem): number {
  const depth = problemDepth(problem);
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_DEPTH) throw new RangeError(`a problem of depth ${depth}: the per-depth figures hold depths 1 to ${MAX_DEPTH}`);
  return depth;
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

function shareOrNull(count: number, total: number): number | null {
  return total === 0 ? null : count / total;
}
