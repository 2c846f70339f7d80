import { describe, expect, it } from 'vitest';
import { Episode, episodeConfig, formatToolOutput, OUTPUT_TRUNCATED_MARKER, type EpisodeAction, type EpisodeConfig } from '../src/core/rollout/episode';
import { TOOL_FORMATS } from '../src/core/rollout/formats';
import type { RunResult } from '../src/core/sandbox/protocol';
import { encode, EOS, PAD } from '../src/core/tokenizer';

const PROMPT = encode('Q: what is 347*29+18?\nA:');
const ZEROTIR: EpisodeConfig = { format: TOOL_FORMATS.zerotir, nmax: 2, maxResponseTokens: 256, maxOutputChars: 200 };
const RETOOL: EpisodeConfig = { ...ZEROTIR, format: TOOL_FORMATS.retool };

function ok(stdout: string): RunResult {
  return { ok: true, stdout, stderr: '', timedOut: false, truncated: false, durationMs: 1 };
}
function failed(type: string, message: string, stdout = ''): RunResult {
  return { ok: false, stdout, stderr: '', error: { type, message }, timedOut: type === 'Timeout', truncated: false, durationMs: 1 };
}

/** Feeds `text` one character at a time; returns the actions. */
function feed(episode: Episode, text: string): EpisodeAction[] {
  return encode(text).map((id) => episode.pushPolicyToken(id));
}

describe('episodeConfig', () => {
  it('takes the format by name and the limits from a run config or a checkpoint\'s, with the Nmax given', () => {
    const limits = { format: 'retool' as const, maxResponseTokens: 96, maxOutputChars: 64, sandboxTimeoutMs: 2000, seed: 1 };
    expect(episodeConfig(limits, 3)).toEqual({ format: TOOL_FORMATS.retool, nmax: 3, maxResponseTokens: 96, maxOutputChars: 64 });
    expect(episodeConfig({ ...limits, format: 'zerotir' }, 0)).toEqual({ format: TOOL_FORMATS.zerotir, nmax: 0, maxResponseTokens: 96, maxOutputChars: 64 });
  });
});

describe('Episode, ZeroTIR format', () => {
  it('runs the typical good response: execute on the closing fence, env output masked, answer, EOS', () => {
    const ep = new Episode(PROMPT, ZEROTIR);
    const actions = feed(ep, ' ```python\nprint(347*29+18)\n```');
    expect(actions.slice(0, -1).every((a) => a.type === 'continue')).toBe(true);
    expect(actions.at(-1)).toEqual({ type: 'execute', code: 'print(347*29+18)' });
    expect(ep.waitingForTool).toBe(true);
    expect(() => ep.pushPolicyToken(encode('A')[0])).toThrow(/tool result/);

    const env = ep.pushToolResult(ok('10081\n'));
    expect(env).toEqual(encode('\n```output\n10081\n```\n'));
    expect(ep.waitingForTool).toBe(false);
    expect(feed(ep, 'Answer: 10081').every((a) => a.type === 'continue')).toBe(true);
    expect(ep.pushPolicyToken(EOS)).toEqual({ type: 'done' });

    expect(ep.done && ep.endedWithEos).toBe(true);
    expect(ep.responseText()).toBe(' ```python\nprint(347*29+18)\n```\n```output\n10081\n```\nAnswer: 10081');
    // policy: 1 + 9 + 1 + 16 + 1 + 3 = 31 chars; env "\n```output\n10081\n```\n": 1 + 9 + 1 + 5 + 1 + 3 + 1 = 21;
    // then "Answer: 10081" (13) and EOS
    expect(ep.tokens).toHaveLength(31 + 21 + 14);
    expect(ep.policyMask).toEqual([...Array(31).fill(1), ...Array(21).fill(0), ...Array(14).fill(1)]);
    expect(ep.tokens.at(-1)).toBe(EOS);
    expect(ep.calls).toEqual([{ code: 'print(347*29+18)', executed: true, result: ok('10081\n'), start: 1 }]);
    expect(ep.executedCalls).toBe(1);
    expect(ep.promptIds).toEqual(PROMPT);
  });

  it('does not open code on a bare fence or on ```output written by the model', () => {
    const ep = new Episode(PROMPT, ZEROTIR);
    const actions = feed(ep, '```\nx\n```\n```output\n5\n```\n');
    expect(actions.every((a) => a.type === 'continue')).toBe(true);
    expect(ep.calls).toEqual([]);
    expect(ep.policyMask.every((m) => m === 1)).toBe(true);
  });

  it('passes multi-line code without the newlines next to the fences', () => {
    const ep = new Episode(PROMPT, ZEROTIR);
    expect(feed(ep, '```python\nx = 12+5\nprint(x)\n```').at(-1)).toEqual({ type: 'execute', code: 'x = 12+5\nprint(x)' });
  });

  it('gives empty code for an empty block', () => {
    const ep = new Episode(PROMPT, ZEROTIR);
    expect(feed(ep, '```python```').at(-1)).toEqual({ type: 'execute', code: '' });
  });

  it('finds a fence split by a special token, and records where it starts', () => {
    const ep = new Episode(PROMPT, ZEROTIR);
    feed(ep, 'ok ``');
    ep.pushPolicyToken(PAD);
    const actions = feed(ep, '`python\nprint(1)\n```');
    expect(actions.at(-1)).toEqual({ type: 'execute', code: 'print(1)' });
    expect(ep.calls[0].start).toBe(3);
  });
});

describe('Episode, Nmax', () => {
  const block = (n: number) => `\`\`\`python\nprint(${n})\n\`\`\``;

  it('nmax 0: fences are plain text, calls are recorded as not executed', () => {
    const ep = new Episode(PROMPT, { ...ZEROTIR, nmax: 0 });
    const actions = feed(ep, `${block(1)}\n${block(2)}\nAnswer: 2`);
    expect(actions.every((a) => a.type === 'continue')).toBe(true);
    expect(ep.calls.map((c) => [c.code, c.executed])).toEqual([['print(1)', false], ['print(2)', false]]);
    expect(ep.executedCalls).toBe(0);
  });

  it('nmax 1: the second fence is not executed', () => {
    const ep = new Episode(PROMPT, { ...ZEROTIR, nmax: 1 });
    expect(feed(ep, block(1)).at(-1)?.type).toBe('execute');
    ep.pushToolResult(ok('1\n'));
    expect(feed(ep, block(2)).every((a) => a.type === 'continue')).toBe(true);
    expect(ep.calls.map((c) => c.executed)).toEqual([true, false]);
  });

  it('nmax 2: the first two fences execute, the third is plain text', () => {
    const ep = new Episode(PROMPT, { ...ZEROTIR, nmax: 2 });
    const executed: string[] = [];
    for (const n of [1, 2, 3]) {
      const last = feed(ep, block(n)).at(-1)!;
      if (last.type === 'execute') {
        executed.push(last.code);
        ep.pushToolResult(ok(`${n}\n`));
      }
    }
    expect(executed).toEqual(['print(1)', 'print(2)']);
    expect(ep.calls.map((c) => c.executed)).toEqual([true, true, false]);
    expect(ep.calls[2].result).toBeUndefined();
    // every block is 9 + 1 + 8 + 1 + 3 = 22 policy chars; each executed call adds "\n```output\nN\n```\n" = 17 env chars
    expect(ep.calls.map((c) => c.start)).toEqual([0, 22 + 17, 2 * (22 + 17)]);
    expect(ep.policyMask.filter((m) => m === 0)).toHaveLength(34);
  });
});

describe('Episode, ReTool format', () => {
  it('stops on </code> and appends the interpreter block', () => {
    const ep = new Episode(PROMPT, RETOOL);
    expect(feed(ep, '```python\nprint(1)\n```').every((a) => a.type === 'continue')).toBe(true);
    expect(feed(ep, ' <code>\nprint(2+3)\n</code>').at(-1)).toEqual({ type: 'execute', code: 'print(2+3)' });
    expect(ep.pushToolResult(ok('5\n'))).toEqual(encode('\n<interpreter>\n5\n</interpreter>\n'));
    feed(ep, 'Answer: 5');
    ep.pushPolicyToken(EOS);
    expect(ep.responseText()).toBe('```python\nprint(1)\n``` <code>\nprint(2+3)\n</code>\n<interpreter>\n5\n</interpreter>\nAnswer: 5');
    expect(ep.calls).toHaveLength(1);
    expect(ep.calls[0].start).toBe(23);
  });
});

describe('Episode, ending', () => {
  it('ends on EOS at once, with EOS as a policy token', () => {
    const ep = new Episode(PROMPT, ZEROTIR);
    expect(ep.pushPolicyToken(EOS)).toEqual({ type: 'done' });
    expect([ep.tokens, ep.policyMask, ep.endedWithEos, ep.responseText()]).toEqual([[EOS], [1], true, '']);
    expect(() => ep.pushPolicyToken(EOS)).toThrow(/finished/);
  });

  it('EOS inside code ends the episode without a call', () => {
    const ep = new Episode(PROMPT, ZEROTIR);
    feed(ep, '```python\nprint(1)');
    expect(ep.pushPolicyToken(EOS).type).toBe('done');
    expect(ep.calls).toEqual([]);
  });

  it('stops at the length cap without EOS', () => {
    const ep = new Episode(PROMPT, { ...ZEROTIR, maxResponseTokens: 5 });
    expect(feed(ep, 'Answe').map((a) => a.type)).toEqual(['continue', 'continue', 'continue', 'continue', 'done']);
    expect([ep.done, ep.endedWithEos, ep.tokens.length]).toEqual([true, false, 5]);
    expect(() => ep.pushPolicyToken(EOS)).toThrow(/finished/);
  });

  it('a closing fence on the last allowed token ends the episode; the call is not executed', () => {
    // " ```python\nprint(1)\n```" is 1 + 9 + 1 + 8 + 1 + 3 = 23 characters
    const ep = new Episode(PROMPT, { ...ZEROTIR, maxResponseTokens: 23 });
    expect(feed(ep, ' ```python\nprint(1)\n```').at(-1)).toEqual({ type: 'done' });
    expect(ep.calls).toEqual([{ code: 'print(1)', executed: false, start: 1 }]);
    expect(ep.waitingForTool).toBe(false);
  });

  it('cuts the output block at the cap and ends', () => {
    // 23 policy characters leave 7 of the 30; the block "\n```output\n1\n```\n" is 17
    const ep = new Episode(PROMPT, { ...ZEROTIR, maxResponseTokens: 30 });
    expect(feed(ep, ' ```python\nprint(1)\n```').at(-1)?.type).toBe('execute');
    expect(ep.pushToolResult(ok('1\n'))).toEqual(encode('\n```out'));
    expect([ep.done, ep.endedWithEos, ep.tokens.length, ep.policyMask.filter((m) => m === 0).length]).toEqual([true, false, 30, 7]);
    expect(ep.responseText()).toBe(' ```python\nprint(1)\n```\n```out');
  });

  it('ends when the output fills the cap exactly', () => {
    const ep = new Episode(PROMPT, { ...ZEROTIR, maxResponseTokens: 23 + 17 });
    feed(ep, ' ```python\nprint(1)\n```');
    expect(ep.pushToolResult(ok('1\n'))).toHaveLength(17);
    expect(ep.done).toBe(true);
  });

  it('truncates long output with the marker inside the block', () => {
    const ep = new Episode(PROMPT, { ...ZEROTIR, maxOutputChars: 5 });
    feed(ep, '```python\nprint(123456789)\n```');
    expect(ep.pushToolResult(ok('123456789\n'))).toEqual(encode(`\n\`\`\`output\n12345\n${OUTPUT_TRUNCATED_MARKER}\n\`\`\`\n`));
  });

  it('refuses misuse: a result with no call, bad config', () => {
    expect(() => new Episode(PROMPT, ZEROTIR).pushToolResult(ok(''))).toThrow(/no call/);
    expect(() => new Episode(PROMPT, { ...ZEROTIR, nmax: -1 })).toThrow(/nmax/);
    expect(() => new Episode(PROMPT, { ...ZEROTIR, nmax: 1.5 })).toThrow(/nmax/);
    expect(() => new Episode(PROMPT, { ...ZEROTIR, maxResponseTokens: 0 })).toThrow(/maxResponseTokens/);
    expect(() => new Episode(PROMPT, { ...ZEROTIR, maxOutputChars: -1 })).toThrow(/maxOutputChars/);
  });

  it('encodes characters outside the vocabulary as ?', () => {
    const ep = new Episode(PROMPT, ZEROTIR);
    feed(ep, '```python\nprint("π")\n```');
    expect(ep.pushToolResult(ok('π\n'))).toEqual(encode('\n```output\n?\n```\n'));
  });
});

describe('formatToolOutput', () => {
  it('shows stdout without its final newline', () => {
    expect(formatToolOutput(ok('10081\n'), 100)).toBe('10081');
    expect(formatToolOutput(ok('1\n2\n'), 100)).toBe('1\n2');
    expect(formatToolOutput(ok(''), 100)).toBe('');
  });

  it('shows an error as "<ErrorType>: message", from a traceback or a bare message', () => {
    const traceback = 'Traceback (most recent call last):\n  File "<exec>", line 1, in <module>\nZeroDivisionError: division by zero\n';
    expect(formatToolOutput(failed('ZeroDivisionError', traceback), 100)).toBe('ZeroDivisionError: division by zero');
    expect(formatToolOutput(failed('ZeroDivisionError', 'division by zero'), 100)).toBe('ZeroDivisionError: division by zero');
    expect(formatToolOutput(failed('Timeout', ''), 100)).toBe('Timeout');
    expect(formatToolOutput(failed('Timeout', 'ran past 2000 ms'), 100)).toBe('Timeout: ran past 2000 ms');
    expect(formatToolOutput(failed('NameError', "NameError: name 'x' is not defined", '1\n'), 100)).toBe("1\nNameError: name 'x' is not defined");
  });

  it('cuts at maxChars and adds a visible marker line', () => {
    expect(formatToolOutput(ok(`${'a'.repeat(50)}\n`), 10)).toBe(`aaaaaaaaaa\n${OUTPUT_TRUNCATED_MARKER}`);
    expect(formatToolOutput(ok('12345\n6789\n'), 6)).toBe(`12345\n${OUTPUT_TRUNCATED_MARKER}`);
    expect(formatToolOutput(ok('12345'), 0)).toBe(OUTPUT_TRUNCATED_MARKER);
    expect(formatToolOutput(ok('12345\n'), 5)).toBe('12345');
  });

  it('adds the marker when the sandbox already cut the output', () => {
    expect(formatToolOutput({ ...ok('abc'), truncated: true }, 100)).toBe(`abc\n${OUTPUT_TRUNCATED_MARKER}`);
  });
});
