/**
 * Turning what an interpreter answered into a RunResult, the same way in every environment: the
 * reply of a run (interpreterIsolation.mjs), an interrupt the host sent at the timeout, a kill, a
 * dead interpreter. Nothing in a reply is trusted: every field is checked for type and size, and a
 * reply that fails is an InvalidResult for that run and a recycled interpreter, never a host error.
 */
import { utf8Length } from './interpreterIsolation.mjs';
import type { RunResult } from './protocol';
import { RUNNER_ERROR_TYPES, RUNNER_MAX_ERROR_MESSAGE_CHARS, RUNNER_MAX_ERROR_TYPE_CHARS, type RunnerOutput } from './pythonRunner';

/** The runner's JSON is ASCII: escapes can make a bounded error six times its length, plus framing. */
const MAX_RUNNER_OUTPUT_CHARS = 6 * (RUNNER_MAX_ERROR_MESSAGE_CHARS + RUNNER_MAX_ERROR_TYPE_CHARS) + 100;

/** What a run sees from the host's side: its timeout, whether the interrupt fired, its output cap. */
export interface RunContext {
  interrupted: boolean;
  timeoutMs: number;
  durationMs: number;
  maxOutputBytes: number;
}

/** A result, and whether the reply was well formed (if not, the interpreter must be replaced). */
export interface CheckedResult {
  result: RunResult;
  valid: boolean;
}

/**
 * A finished run. `interrupted` means the host fired the interrupt at the timeout: that run is a
 * Timeout whatever Python did with the KeyboardInterrupt (even if it caught it and finished). A
 * truncated run is an OutputLimit (the host interrupted it at the cap).
 */
export function resultFromReply(reply: unknown, run: RunContext): CheckedResult {
  const fields = replyFields(reply, run.maxOutputBytes);
  if (typeof fields === 'string') return { result: invalidResult(fields, run.durationMs), valid: false };
  const { stdout, stderr, truncated, output, failure } = fields;
  let error: RunResult['error'];
  if (run.interrupted) error = timeoutError(run.timeoutMs, 'interrupted');
  else if (truncated) error = { type: 'OutputLimit', message: `OutputLimit: output passed ${run.maxOutputBytes} bytes` };
  else if (failure !== undefined) {
    return { result: diedResult(`a fatal error in the interpreter; it will be replaced. ${failure}`, run.durationMs), valid: true };
  }
  else {
    const parsed = runnerError(output);
    if (typeof parsed === 'string') return { result: invalidResult(parsed, run.durationMs), valid: false };
    error = parsed ?? undefined;
  }
  return {
    result: { ok: !error, stdout, stderr, ...(error && { error }), timedOut: run.interrupted, truncated, durationMs: run.durationMs },
    valid: true,
  };
}

interface ReplyFields {
  stdout: string;
  stderr: string;
  truncated: boolean;
  output: string | undefined;
  /** What the interpreter's fatal error said, if it failed. */
  failure: string | undefined;
}

/** The interpreters cut a fatal error's description to this. */
const MAX_FAILURE_CHARS = 2000;

/** The reply's fields, or why they are malformed. */
function replyFields(reply: unknown, maxOutputBytes: number): ReplyFields | string {
  if (typeof reply !== 'object' || reply === null) return 'the reply is not an object';
  const { stdout, stderr, truncated, output, failure } = reply as Record<string, unknown>;
  if (typeof stdout !== 'string' || typeof stderr !== 'string') return 'stdout or stderr is not text';
  // The cap is on what is returned, in UTF-8: a reply can be no longer in UTF-16 units, so the cheap test goes first.
  if (stdout.length + stderr.length > maxOutputBytes || utf8Length(stdout) + utf8Length(stderr) > maxOutputBytes) {
    return `stdout and stderr pass the ${maxOutputBytes}-byte cap`;
  }
  if (typeof truncated !== 'boolean') return 'truncated is not a boolean';
  if (failure !== undefined && (typeof failure !== 'string' || failure.length > MAX_FAILURE_CHARS)) return 'the failure is not a bounded text';
  if (output !== undefined && typeof output !== 'string') return "the runner's answer is not text";
  if (output === undefined && failure === undefined) return 'the runner gave no answer';
  return { stdout, stderr, truncated, output, failure };
}

/** The runner's error (null: none), or why its JSON is malformed. */
function runnerError(output: string | undefined): RunnerOutput['error'] | string {
  if (output === undefined || output.length > MAX_RUNNER_OUTPUT_CHARS) return "the runner's answer is missing or too long";
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return "the runner's answer is not JSON";
  }
  if (typeof parsed !== 'object' || parsed === null || !('error' in parsed)) return "the runner's answer has no error field";
  const { error } = parsed as { error: unknown };
  if (error === null) return null;
  if (typeof error !== 'object') return 'the error is not an object';
  const { type, message } = error as Record<string, unknown>;
  if (typeof type !== 'string' || type.length === 0 || type.length > RUNNER_MAX_ERROR_TYPE_CHARS) return 'the error type is not a short text';
  if (!RUNNER_ERROR_TYPES.has(type)) return 'the error type is not one the runner reports';
  if (typeof message !== 'string' || message.length > RUNNER_MAX_ERROR_MESSAGE_CHARS) return 'the error message is not a bounded text';
  return { type, message };
}

/** The interpreter answered with something malformed: that run's result, and the interpreter goes. */
export function invalidResult(why: string, durationMs: number): RunResult {
  return {
    ok: false,
    stdout: '',
    stderr: '',
    error: { type: 'InvalidResult', message: `InvalidResult: ${why}; the interpreter will be replaced` },
    timedOut: false,
    truncated: false,
    durationMs,
  };
}

/** The interpreter was killed at timeout + grace: its output died with it. */
export function killedResult(timeoutMs: number, durationMs: number): RunResult {
  return {
    ok: false,
    stdout: '',
    stderr: '',
    error: timeoutError(timeoutMs, 'killed'),
    timedOut: true,
    truncated: false,
    durationMs,
  };
}

/** The interpreter was killed because its memory passed the cap. */
export function memoryCapResult(limitBytes: number, durationMs: number): RunResult {
  return {
    ok: false,
    stdout: '',
    stderr: '',
    error: { type: 'MemoryError', message: `MemoryError: the interpreter passed its memory cap of ${Math.round(limitBytes / 2 ** 20)} MiB and was killed` },
    timedOut: false,
    truncated: false,
    durationMs,
  };
}

/** The interpreter failed outside Python's control (fatal error, crash, exit). */
export function diedResult(message: string, durationMs: number): RunResult {
  return {
    ok: false,
    stdout: '',
    stderr: '',
    error: { type: 'InterpreterDied', message: `InterpreterDied: ${message}` },
    timedOut: false,
    truncated: false,
    durationMs,
  };
}

function timeoutError(timeoutMs: number, how: 'interrupted' | 'killed') {
  const what = how === 'interrupted' ? 'interrupted' : 'killed (it did not stop when interrupted)';
  return { type: 'Timeout', message: `Timeout: the run passed ${timeoutMs} ms and was ${what}` };
}
