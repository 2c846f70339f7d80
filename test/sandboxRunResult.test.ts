import { describe, expect, it } from 'vitest';
import type { RunnerOutput } from '../src/core/sandbox/pythonRunner';
import { diedResult, killedResult, resultFromRunner } from '../src/core/sandbox/runResult';

const output = (fields: Partial<RunnerOutput> = {}): RunnerOutput => ({
  ok: true,
  stdout: 'out\n',
  stderr: 'err\n',
  truncated: false,
  error: null,
  guardBypassed: false,
  ...fields,
});

describe('sandbox run results', () => {
  it('passes a clean run through', () => {
    expect(resultFromRunner(output(), { interrupted: false, timeoutMs: 100, durationMs: 3 })).toEqual({
      ok: true,
      stdout: 'out\n',
      stderr: 'err\n',
      timedOut: false,
      truncated: false,
      durationMs: 3,
    });
  });

  it("keeps Python's own error and the truncation flag", () => {
    const error = { type: 'OutputLimit', message: 'OutputLimit: output passed 4 bytes' };
    const result = resultFromRunner(output({ ok: false, error, truncated: true }), { interrupted: false, timeoutMs: 100, durationMs: 5 });
    expect(result).toMatchObject({ ok: false, error, truncated: true, timedOut: false });
  });

  it('makes an interrupted run a Timeout even when Python caught the interrupt and finished', () => {
    const result = resultFromRunner(output(), { interrupted: true, timeoutMs: 250, durationMs: 251 });
    expect(result).toMatchObject({ ok: false, timedOut: true, stdout: 'out\n' });
    expect(result.error).toEqual({ type: 'Timeout', message: 'Timeout: the run passed 250 ms and was interrupted' });
  });

  it('reports a killed run as a Timeout without output', () => {
    expect(killedResult(1000, 1500.5)).toEqual({
      ok: false,
      stdout: '',
      stderr: '',
      error: { type: 'Timeout', message: 'Timeout: the run passed 1000 ms and was killed (it did not stop when interrupted)' },
      timedOut: true,
      truncated: false,
      durationMs: 1500.5,
    });
  });

  it('reports a dead interpreter as InterpreterDied', () => {
    expect(diedResult('the process exited (SIGSEGV)', 7)).toMatchObject({
      ok: false,
      timedOut: false,
      error: { type: 'InterpreterDied', message: 'InterpreterDied: the process exited (SIGSEGV)' },
    });
  });
});
