/**
 * ReTool's cold start in miniature: code-augmented traces for every kind of problem. Each trace is
 * reasoning text, then the kind's step-by-step calls (tracePlans.ts), each followed by its REAL
 * output from the sandbox (formatted exactly as the environment inserts it during RL), then the
 * answer line read from the last output. The response alternates policy and env segments as an RL
 * rollout's transcript does, so SFT trains on the policy text only. A share of traces is verbose
 * (traceTexts.ts), so RL has length to shed. Only traces whose answer verifies, and that fit an RL
 * response, are kept.
 */
import { formatToolOutput } from '../rollout/episode';
import type { ToolFormat } from '../rollout/formats';
import type { Random } from '../random';
import type { SampleSegment } from '../rollout/rolloutSample';
import type { PythonSandbox, RunOptions } from '../sandbox/protocol';
import type { Problem } from '../tasks/problem';
import { formatPrompt } from '../tasks/prompt';
import { answerReward } from '../tasks/reward';
import { trainProblem, type ProblemMix } from '../tasks/splits';
import { planFor, printedAnswer, runPlan, type TraceCall, type TracePlan } from './tracePlans';
import { closingText, linkText, SHORT_REASONING, verboseOpenings } from './traceTexts';

/**
 * Share of drafts that are verbose. A verbose draft that would not fit the cap is kept plain (same
 * calls, same outputs), so deep chains stay in the mix: the kept share is a little lower.
 */
export const VERBOSE_SHARE = 0.4;

export interface ColdStartTrace {
  problem: Problem;
  prompt: string;
  /** The response in order: policy text (trained on) and each interpreter block (env, no loss). */
  segments: SampleSegment[];
  /** True when the trace kept its verbose reasoning. */
  verbose: boolean;
}

export interface TraceLimits {
  /** A trace longer than an RL response may be (tokens = characters, EOS included) is dropped. */
  maxResponseTokens: number;
  maxOutputChars: number;
}

/** What a trace is to do and say before its outputs exist. Every random choice is made here, so completion order cannot change a trace. */
export interface TraceDraft {
  plan: TracePlan;
  /** The short line before the first call (`Use Python.`). */
  reasoning: string;
  /** A verbose draft's opening sentences, used in place of `reasoning`; null for a plain draft. */
  verbose: string | null;
}

export function draftTrace(problem: Problem, rng: Random): TraceDraft {
  const plan = planFor(problem, rng);
  const reasoning = rng.pick(SHORT_REASONING);
  const verbose = rng.next() < VERBOSE_SHARE ? rng.pick(verboseOpenings(problem, plan)) : null;
  return { plan, reasoning, verbose };
}

/**
 * The response as segments: policy text ending in a code block, the block's output, ... and the
 * policy's answer line. `opening` is the text before the first call; verbose traces also narrate
 * the steps between calls and close with a sentence.
 */
function transcript(
  plan: TracePlan,
  opening: string,
  verbose: boolean,
  calls: TraceCall[],
  answer: string,
  format: ToolFormat,
  maxOutputChars: number,
): SampleSegment[] {
  const segments: SampleSegment[] = [];
  let previousOutput = '';
  calls.forEach((call, i) => {
    // The response opens with a space, as after the prompt's `A:`; later text starts the line after an output block.
    const lead = i === 0 ? ` ${opening}` : linkText(plan, previousOutput, verbose);
    const block = `${format.codeOpen}\n${call.code}\n${format.codeClose}`;
    segments.push({ kind: 'policy', text: lead === '' ? block : `${lead} ${block}` });
    previousOutput = formatToolOutput(call.result, maxOutputChars);
    segments.push({ kind: 'env', text: format.outputOpen + previousOutput + format.outputClose });
  });
  const closing = verbose ? `${closingText(plan, answer)}\n` : '';
  segments.push({ kind: 'policy', text: `${closing}Answer: ${answer}` });
  return segments;
}

/**
 * Runs the draft's calls and completes the trace from their outputs, or returns null when a call
 * the plan needed failed, the last call printed something other than one integer, the answer does
 * not verify, or even the plain trace is longer than an RL response.
 */
export async function completeTrace(
  problem: Problem,
  draft: TraceDraft,
  format: ToolFormat,
  sandbox: PythonSandbox,
  runOptions: RunOptions,
  limits: TraceLimits,
): Promise<ColdStartTrace | null> {
  const calls = await runPlan(draft.plan, sandbox, runOptions);
  if (calls === null) return null;
  const answer = printedAnswer(draft.plan, calls);
  if (answer === null) return null;
  const tellings = [{ opening: draft.reasoning, verbose: false }];
  if (draft.verbose !== null) tellings.unshift({ opening: draft.verbose, verbose: true });
  for (const { opening, verbose } of tellings) {
    const segments = transcript(draft.plan, opening, verbose, calls, answer, format, limits.maxOutputChars);
    const response = segments.map((s) => s.text).join('');
    // +1: the EOS that ends the response counts against the cap too.
    if (response.length + 1 > limits.maxResponseTokens) continue;
    if (answerReward(response, true, problem) !== 1) return null;
    return { problem, prompt: formatPrompt(problem), segments, verbose };
  }
  return null;
}

/** Draws training problems (never held-out ones) and keeps verified traces until `count` are kept or `maxDrafts` are tried. */
export async function coldStartTraces(options: {
  count: number;
  maxDrafts: number;
  format: ToolFormat;
  mix: ProblemMix;
  rng: Random;
  sandbox: PythonSandbox;
  runOptions: RunOptions;
  limits: TraceLimits;
  /** After each batch of drafts: the traces kept and the drafts made so far (the CLI's progress). */
  onBatch?: (kept: number, drafted: number) => void;
}): Promise<{ traces: ColdStartTrace[]; drafted: number }> {
  const { count, maxDrafts, format, rng, sandbox, runOptions, limits } = options;
  const traces: ColdStartTrace[] = [];
  let drafted = 0;
  // Drafts are made in batches so the pool runs several traces at once, in a seeded order.
  while (traces.length < count && drafted < maxDrafts) {
    const batch = Math.min(32, maxDrafts - drafted);
    const drafts = Array.from({ length: batch }, () => {
      const problem = trainProblem(rng, options.mix);
      return { problem, draft: draftTrace(problem, rng) };
    });
    drafted += batch;
    const completed = await Promise.all(drafts.map((d) => completeTrace(d.problem, d.draft, format, sandbox, runOptions, limits)));
    for (const trace of completed) if (trace !== null && traces.length < count) traces.push(trace);
    options.onBatch?.(traces.length, drafted);
  }
  return { traces, drafted };
}

export function traceResponse(trace: ColdStartTrace): string {
  return trace.segments.map((s) => s.text).join('');
}
