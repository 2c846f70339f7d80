/** Right tool results left unclaimed: the output printed the answer, the response earned nothing. */
import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../src/core/rollout/episode';
import { toolPrintedAnswer, unclaimedToolAnswerShare } from '../src/core/metrics/unclaimedAnswers';
import type { RunResult } from '../src/core/sandbox/protocol';

function printed(stdout: string, ok = true): ToolCall {
  const result: RunResult = ok
    ? { ok: true, stdout, stderr: '', timedOut: false, truncated: false, durationMs: 1 }
    : { ok: false, stdout, stderr: '', timedOut: false, truncated: false, durationMs: 1, error: { type: 'NameError', message: 'x' } };
  return { code: 'print(...)', start: 0, executed: true, result };
}

describe('toolPrintedAnswer', () => {
  it('needs the answer at the start of a line from an executed call', () => {
    expect(toolPrintedAnswer({ calls: [printed('51516\n')] }, 51516)).toBe(true);
    expect(toolPrintedAnswer({ calls: [printed('2937\n'), printed(' 21 \n')] }, 21)).toBe(true);
    // The chain's division cell prints the quotient and whether 7 divided the number divided.
    expect(toolPrintedAnswer({ calls: [printed('53 True\n')] }, 53)).toBe(true);
    expect(toolPrintedAnswer({ calls: [printed('True 53\n')] }, 53)).toBe(false);
    // Part of a longer number or line is not the answer.
    expect(toolPrintedAnswer({ calls: [printed('215\n')] }, 21)).toBe(false);
    expect(toolPrintedAnswer({ calls: [printed('x = 21\n')] }, 21)).toBe(false);
    // A block that did not run printed nothing, whatever its code says.
    expect(toolPrintedAnswer({ calls: [{ code: 'print(21)', start: 0, executed: false }] }, 21)).toBe(false);
    // Output before an error counts: the number was on screen.
    expect(toolPrintedAnswer({ calls: [printed('-4\n', false)] }, -4)).toBe(true);
    expect(toolPrintedAnswer({ calls: [] }, 0)).toBe(false);
  });
});

describe('unclaimedToolAnswerShare', () => {
  it('is the unrewarded share of the responses whose tool printed the right answer', () => {
    const rightOutput = { calls: [printed('18\n')] };
    const wrongOutput = { calls: [printed('17\n')] };
    const noTool = { calls: [] };
    // Three printed 18; one of them was rewarded. The wrong output and the direct answer do not count.
    const share = unclaimedToolAnswerShare([rightOutput, rightOutput, rightOutput, wrongOutput, noTool], [18, 18, 18, 18, 18], [1, 0, 0, 0, 1]);
    expect(share).toBeCloseTo(2 / 3, 12);
  });

  it('is null when no tool output printed the right answer', () => {
    expect(unclaimedToolAnswerShare([{ calls: [printed('17\n')] }, { calls: [] }], [18, 18], [0, 1])).toBeNull();
    expect(unclaimedToolAnswerShare([], [], [])).toBeNull();
  });
});
