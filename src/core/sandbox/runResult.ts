/**
 * Turning what an interpreter saw into a RunResult, the same way in every environment: the
 * runner's JSON, an interrupt the host sent at the timeout, a kill, a dead interpreter.
 */
import type { RunResult } from './protocol';
import type { RunnerOutput } from './pythonRunner';

/**
 * A finished run. `interrupted` means the host fired the interrupt at the timeout: that run is a
 * Timeout whatever Python did with the KeyboardInterrupt (even if it caught it and finished).
 */
export function resultFromRunner(
  output: RunnerOutput,
  run: { interrupted: boolean; timeoutMs: number; durationMs: number },
): RunResult {
  const error = run.interrupted ? timeoutError(run.timeoutMs, 'interrupted') : (output.error ?? undefined);
  return {
    ok: !error,
    stdout: output.stdout,
    stderr: output.stderr,
    ...(error && { error }),
    timedOut: run.interrupted,
    truncated: output.truncated,
    durationMs: run.durationMs,
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
