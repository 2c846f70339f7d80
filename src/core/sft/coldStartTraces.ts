/**
 * ReTool's cold start in miniature: code-augmented traces for the task families. Each trace is a
 * short reasoning text, a code block that computes what hand arithmetic would, the block's REAL
 * output from the sandbox (formatted exactly as the environment inserts it during RL), and the
 * answer line read from that output. Only traces whose answer verifies, and that fit an RL
 * response, are kept.
 */
import { formatToolOutput } from '../env/episode';
import type { ToolFormat } from '../env/formats';
import type { Random } from '../random';
import type { SampleSegment } from '../rl/rolloutSample';
import type { PythonSandbox, RunOptions } from '../sandbox/protocol';
import type { Problem } from '../tasks/problem';
import { formatPrompt } from '../tasks/prompt';
import { answerReward } from '../tasks/reward';
import { trainProblem, type ProblemMix } from '../tasks/splits';

export interface ColdStartTrace {
  problem: Problem;
  prompt: string;
  /** The response in order: policy text (trained on) and the interpreter block (env, no loss). */
  segments: SampleSegment[];
}

export interface TraceLimits {
  /** A trace longer than an RL response may be (tokens = characters) is dropped. */
  maxResponseTokens: number;
  maxOutputChars: number;
}

const REASONING = ['Use Python.', 'Let me compute.', 'Run it in code.', 'Python can do it.', 'Compute it.'];

/** Python that computes the problem's value; some families also get a second, equivalent form. */
export function traceCode(problem: Problem, rng: Random): string {
  const e = problem.expression;
  if (e === undefined) return problem.solution;
  const alternatives: string[] = [`print(${e})`];
  if (problem.family === 'sumOfTerms') alternatives.push(`print(sum([${e.split('+').join(', ')}]))`);
  if (problem.family === 'productPlusTerm') {
    const [product, term] = e.split('+');
    alternatives.push(`x = ${product}\nprint(x + ${term})`);
  }
  if (problem.family === 'power') alternatives.push(`print(pow(${e.split('**').join(', ')}))`);
  if (problem.family === 'modulo') alternatives.push(`print(${e.replace('%', ' % ')})`);
  return rng.pick(alternatives);
}

/** What a trace says before its output: the reasoning text and the code. */
export interface TraceDraft {
  reasoning: string;
  code: string;
}

export function draftTrace(problem: Problem, rng: Random): TraceDraft {
  return { reasoning: rng.pick(REASONING), code: traceCode(problem, rng) };
}

/**
 * Runs the draft's code and completes the trace from its output, or returns null when the run
 * failed, printed something other than one integer, the answer does not verify, or the trace is
 * longer than an RL response. The policy text opens with a space, as after the prompt's `A:`.
 */
export async function completeTrace(
  problem: Problem,
  draft: TraceDraft,
  format: ToolFormat,
  sandbox: PythonSandbox,
  runOptions: RunOptions,
  limits: TraceLimits,
): Promise<ColdStartTrace | null> {
  const result = await sandbox.run(draft.code, runOptions);
  if (!result.ok) return null;
  const printed = result.stdout.trim();
  if (!/^-?\d+$/.test(printed)) return null;
  const segments: SampleSegment[] = [
    { kind: 'policy', text: ` ${draft.reasoning} ${format.codeOpen}\n${draft.code}\n${format.codeClose}` },
    { kind: 'env', text: format.outputOpen + formatToolOutput(result, limits.maxOutputChars) + format.outputClose },
    { kind: 'policy', text: `Answer: ${printed}` },
  ];
  const response = segments.map((s) => s.text).join('');
  // +1: the EOS that ends the response counts against the cap too.
  if (response.length + 1 > limits.maxResponseTokens) return null;
  if (answerReward(response, true, problem) !== 1) return null;
  return { problem, prompt: formatPrompt(problem), segments };
}

/** Draws training problems (never test ones) and keeps verified traces until `count` are kept or `maxDrafts` are tried. */
export async function coldStartTraces(options: {
  count: number;
  maxDrafts: number;
  format: ToolFormat;
  mix: ProblemMix;
  rng: Random;
  sandbox: PythonSandbox;
  runOptions: RunOptions;
  limits: TraceLimits;
}): Promise<{ traces: ColdStartTrace[]; drafted: number }> {
  const { count, maxDrafts, format, rng, sandbox, runOptions, limits } = options;
  const traces: ColdStartTrace[] = [];
  let drafted = 0;
  // Drafts are made in batches so the pool runs several calls at once, in a seeded order.
  while (traces.length < count && drafted < maxDrafts) {
    const batch = Math.min(32, maxDrafts - drafted);
    const drafts = Array.from({ length: batch }, () => {
      const problem = trainProblem(rng, options.mix);
      return { problem, draft: draftTrace(problem, rng) };
    });
    drafted += batch;
    const completed = await Promise.all(drafts.map((d) => completeTrace(d.problem, d.draft, format, sandbox, runOptions, limits)));
    for (const trace of completed) if (trace !== null && traces.length < count) traces.push(trace);
  }
  return { traces, drafted };
}

export function traceResponse(trace: ColdStartTrace): string {
  return trace.segments.map((s) => s.text).join('');
}
