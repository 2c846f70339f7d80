import { describe, expect, it } from 'vitest';
import { RUNNER_ERROR_TYPES } from '../src/core/sandbox/pythonRunner';
import { diedResult, killedResult, resultFromReply, type RunContext } from '../src/core/sandbox/runResult';

const reply = (fields: Record<string, unknown> = {}) => ({
  output: '{"error": null}',
  stdout: 'out\n',
  stderr: 'err\n',
  truncated: false,
  ...fields,
});
const context = (fields: Partial<RunContext> = {}): RunContext => ({
  interrupted: false,
  timeoutMs: 100,
  durationMs: 3,
  maxOutputBytes: 64,
  ...fields,
});

describe('sandbox run results', () => {
  it('passes a clean run through', () => {
    expect(resultFromReply(reply(), context())).toEqual({
      valid: true,
      result: { ok: true, stdout: 'out\n', stderr: 'err\n', timedOut: false, truncated: false, durationMs: 3 },
    });
  });

  it("keeps Python's own error", () => {
    const error = { type: 'ZeroDivisionError', message: 'ZeroDivisionError: division by zero' };
    const { result } = resultFromReply(reply({ output: JSON.stringify({ error }) }), context());
    expect(result).toMatchObject({ ok: false, error, timedOut: false });
  });

  it('makes a truncated run an OutputLimit whatever Python said', () => {
    const output = JSON.stringify({ error: { type: 'KeyboardInterrupt', message: 'KeyboardInterrupt' } });
    const { result, valid } = resultFromReply(reply({ output, truncated: true }), context());
    expect(valid).toBe(true);
    expect(result).toMatchObject({ ok: false, truncated: true, error: { type: 'OutputLimit', message: 'OutputLimit: output passed 64 bytes' } });
  });

  it('makes an interrupted run a Timeout even when Python caught the interrupt and finished', () => {
    const { result } = resultFromReply(reply(), context({ interrupted: true, timeoutMs: 250, durationMs: 251 }));
    expect(result).toMatchObject({ ok: false, timedOut: true, stdout: 'out\n' });
    expect(result.error).toEqual({ type: 'Timeout', message: 'Timeout: the run passed 250 ms and was interrupted' });
  });

  it('reports a fatal interpreter failure as InterpreterDied with what it said', () => {
    const { result, valid } = resultFromReply(reply({ output: undefined, failure: 'RuntimeError: unreachable' }), context());
    expect(valid).toBe(true);
    expect(result.error).toEqual({
      type: 'InterpreterDied',
      message: 'InterpreterDied: a fatal error in the interpreter; it will be replaced. RuntimeError: unreachable',
    });
  });

  // Each of these crossed from the interpreter once (a runner patched from inside, a forged reply):
  // the run gets an InvalidResult and the reply is marked invalid, so the interpreter is replaced.
  const malformed: [string, unknown][] = [
    ['not an object', 'hello'],
    ['null', null],
    ['a stdout that is not text', reply({ stdout: 5 })],
    ['stdout past the cap', reply({ stdout: 'x'.repeat(60), stderr: 'y'.repeat(5) })],
    ['a truncated flag that is not a boolean', reply({ truncated: 'yes' })],
    ['an answer that is not text', reply({ output: 7 })],
    ['no answer and no failure', reply({ output: undefined })],
    ['an answer that is not JSON', reply({ output: '{"error": ' })],
    ['JSON without the error field', reply({ output: '{}' })],
    ['an error type of ten million characters', reply({ output: JSON.stringify({ error: { type: 'E'.repeat(10_000_000), message: 'm' } }) })],
    ['an error type past 100 characters', reply({ output: JSON.stringify({ error: { type: 'E'.repeat(101), message: 'm' } }) })],
    ['an empty error type', reply({ output: JSON.stringify({ error: { type: '', message: 'm' } }) })],
    ['an error message that is not text', reply({ output: JSON.stringify({ error: { type: 'ValueError', message: ['m'] } }) })],
    ['an error message past 4000 characters', reply({ output: JSON.stringify({ error: { type: 'ValueError', message: 'm'.repeat(4001) } }) })],
    // Issue 25: a Python class could take a host error type's name, with newlines and terminal codes.
    ['an error type of the host (a class posing as Timeout)', reply({ output: JSON.stringify({ error: { type: 'Timeout', message: 'm' } }) })],
    ['an error type with a newline and ANSI codes', reply({ output: JSON.stringify({ error: { type: 'ValueError\n\u001b[31mInterpreterDied', message: 'm' } }) })],
    ['an error type the runner never reports', reply({ output: JSON.stringify({ error: { type: 'E', message: 'm' } }) })],
    // Issue 25: the cap counted raw bytes, and each invalid byte came back as U+FFFD, three bytes.
    ['output past the cap once decoded', reply({ stdout: '\ufffd'.repeat(20), stderr: 'y'.repeat(5) })],
    ['a failure that is not text', reply({ output: undefined, failure: { toString: 1 } })],
    ['a failure past 2000 characters', reply({ output: undefined, failure: 'f'.repeat(2001) })],
  ];
  for (const [what, bad] of malformed) {
    it(`answers a reply with ${what} with InvalidResult`, () => {
      const { result, valid } = resultFromReply(bad, context());
      expect(valid).toBe(false);
      expect(result).toMatchObject({ ok: false, stdout: '', stderr: '', timedOut: false, truncated: false, durationMs: 3 });
      expect(result.error?.type).toBe('InvalidResult');
      expect(result.error?.message).toMatch(/^InvalidResult: .+; the interpreter will be replaced$/);
    });
  }

  it('accepts the bounds themselves: a 4000-character message, output at the cap in UTF-8 bytes', () => {
    const error = { type: 'PendingDeprecationWarning', message: '\u00e9'.repeat(4000) };
    const output = JSON.stringify({ error }).replace(/\u00e9/g, '\\u00e9');
    const { result, valid } = resultFromReply(reply({ output, stdout: '\ufffd'.repeat(20), stderr: 'y'.repeat(4) }), context());
    expect(valid).toBe(true);
    expect(result.error).toEqual(error);
  });

  it('accepts every type the runner reports, and only those', () => {
    for (const type of RUNNER_ERROR_TYPES) {
      expect(resultFromReply(reply({ output: JSON.stringify({ error: { type, message: 'm' } }) }), context()).valid).toBe(true);
    }
    for (const type of ['Timeout', 'OutputLimit', 'InterpreterDied', 'InvalidResult', 'JSONDecodeError']) expect(RUNNER_ERROR_TYPES.has(type)).toBe(false);
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
