/** Seeded inputs for the export's parity tests: sandbox results of every shape, policy streams of both formats. */
import type { ToolFormatName } from '../src/core/rollout/formats';
import { Random } from '../src/core/random';
import type { RunResult } from '../src/core/sandbox/protocol';

/** A RunResult as tir_episode.py reads it. */
export interface PythonResult {
  ok: boolean;
  stdout: string;
  truncated: boolean;
  error_type?: string;
  error_message?: string;
}

export function pythonResult(r: RunResult): PythonResult {
  return { ok: r.ok, stdout: r.stdout, truncated: r.truncated, ...(r.error ? { error_type: r.error.type, error_message: r.error.message } : {}) };
}

/** A seeded RunResult of every shape the sandbox returns. */
export function randomResult(rng: Random): RunResult {
  const pieces = ['42', 'x'.repeat(rng.int(0, 90)), 'line\n', '', 'é', '\n\n', 'Answer: 7\n', 'a\nb\nc\n'];
  const stdout = Array.from({ length: rng.int(0, 3) }, () => rng.pick(pieces)).join('');
  const errors = [
    { type: 'ZeroDivisionError', message: 'Traceback (most recent call last):\n  File "<exec>", line 1\nZeroDivisionError: division by zero' },
    { type: 'Timeout', message: 'Timeout: the run passed 2000 ms and was interrupted' },
    { type: 'NameError', message: "name 'y' is not defined" },
    { type: 'OutputLimit', message: '' },
    { type: 'SyntaxError', message: '   \n' },
    { type: 'ValueError', message: 'ValueError' },
  ];
  const ok = rng.next() < 0.5;
  const error = ok ? undefined : rng.next() < 0.9 ? rng.pick(errors) : undefined;
  return { ok, stdout, stderr: '', ...(error ? { error } : {}), timedOut: false, truncated: rng.next() < 0.2, durationMs: 1 };
}

/** Pieces a policy stream is made of: fences whole and broken, code, answers. */
export const STREAM_PIECES: Record<ToolFormatName, string[]> = {
  zerotir: ['```python', '\nprint(6*7)\n', '```', ' Answer: 42', 'x', '\n', '``', '```py', 'print(1/0)', ' so '],
  retool: ['<code>', '\nprint(6*7)\n', '</code>', ' Answer: 42', 'x', '\n', '<cod', '</', 'print(1/0)', ' so '],
};


/** A policy stream with the episode's limits and a sandbox result for each call it may run. */
export interface StreamPlan {
  format: ToolFormatName;
  text: string;
  nmax: number;
  maxResponseTokens: number;
  maxOutputChars: number;
  results: RunResult[];
}

/** Seeded streams alternating the two formats: random pieces, Nmax 0-3, a cap of 8-120 tokens. */
export function streamPlans(seed: number, count: number): StreamPlan[] {
  const rng = new Random(seed);
  return Array.from({ length: count }, (_, i) => {
    const format: ToolFormatName = i % 2 === 0 ? 'zerotir' : 'retool';
    const pieces = Array.from({ length: rng.int(1, 14) }, () => rng.pick(STREAM_PIECES[format]));
    // Half the streams end on a final answer line, so some responses earn the reward.
    const text = pieces.join('') + (rng.next() < 0.5 ? '\nAnswer: 42' : '');
    const limits = { nmax: rng.int(0, 3), maxResponseTokens: rng.int(8, 120), maxOutputChars: rng.int(8, 40) };
    // The lab's tokenizer has no 'é': keep results in its vocabulary so both sides see the same characters.
    const results = Array.from({ length: 4 }, () => {
      const r = randomResult(rng);
      return { ...r, stdout: r.stdout.replace(/é/g, 'e') };
    });
    return { format, text, ...limits, results };
  });
}
