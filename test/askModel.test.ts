/**
 * "Ask the model" in the engine: one question through the trainer's rollout and episode code. The
 * answer comes as it is written (growing snapshots, the python call running, then its output) and
 * ends with the call's code and output; Nmax 0 runs nothing; a bad question is refused in words.
 */
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerQuestion, type ModelAnswer } from '../src/core/rollout/answerQuestion';
import { MAX_QUESTION_CHARS, promptOf, questionError } from '../src/core/tasks/ownQuestion';
import { PRESETS } from '../src/core/experiment';
import type { PythonSandbox, RunResult } from '../src/core/sandbox/protocol';
import { scriptedPolicy } from './scriptedPolicy';

const SCRIPT = ' ```python\nprint(6*7)\n```\n```output\n42\n```\nAnswer: 42';

function printingSandbox(calls: string[]): PythonSandbox {
  return {
    async run(code: string): Promise<RunResult> {
      calls.push(code);
      return { ok: true, stdout: code === 'print(6*7)' ? '42\n' : '', stderr: '', timedOut: false, truncated: false, durationMs: 0.1 };
    },
    async close() {},
  };
}

const text = (answer: ModelAnswer) => answer.segments.map((s) => s.text).join('');

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('answerQuestion', () => {
  it('writes the answer step by step, runs its python in the sandbox and reads the output back', async () => {
    const calls: string[] = [];
    const snapshots: ModelAnswer[] = [];
    const model = scriptedPolicy(() => SCRIPT);
    const config = { ...PRESETS.classroom, nmax: 2 };
    const answer = await answerQuestion(model, '  what is\n6*7? ', { config, greedy: true, sandbox: printingSandbox(calls) }, (a) => snapshots.push(a));

    expect(answer.prompt).toBe('Q: what is 6*7?\nA:');
    expect(text(answer)).toBe(SCRIPT);
    expect(answer.segments.map((s) => s.kind)).toEqual(['policy', 'env', 'policy']);
    expect(answer.calls).toEqual([{ code: 'print(6*7)', output: '42', ok: true }]);
    expect(calls).toEqual(['print(6*7)']);
    expect(answer.done).toBe(true);
    expect(answer.endedWithEos).toBe(true);

    // Token by token: each snapshot's text extends the one before, and the call shows as running before its output.
    expect(snapshots.length).toBeGreaterThan(SCRIPT.length / 2);
    snapshots.slice(1).forEach((s, i) => expect(text(s).startsWith(text(snapshots[i]))).toBe(true));
    const running = snapshots.findIndex((s) => s.pythonRunning);
    expect(running).toBeGreaterThan(0);
    expect(snapshots[running].calls).toEqual([{ code: 'print(6*7)', output: null, ok: null }]);
    expect(snapshots.slice(running).some((s) => s.calls[0]?.output === '42')).toBe(true);
    expect(text(snapshots.at(-1)!)).toBe(SCRIPT);
  });

  it('runs no python at Nmax 0: the fence is plain text', async () => {
    const calls: string[] = [];
    const model = scriptedPolicy(() => ' ```python\nprint(6*7)\n```\nAnswer: 42');
    const answer = await answerQuestion(model, 'what is 6*7?', { config: { ...PRESETS.classroom, nmax: 0 }, greedy: false, sandbox: printingSandbox(calls) });
    expect(calls).toEqual([]);
    expect(answer.calls).toEqual([{ code: 'print(6*7)', output: null, ok: null }]);
    expect(answer.segments.map((s) => s.kind)).toEqual(['policy']);
  });

  it('refuses an empty or overlong question in words', async () => {
    expect(questionError('   ')).toBe('type a question first');
    expect(questionError('x'.repeat(MAX_QUESTION_CHARS + 1))).toBe(`a question of at most ${MAX_QUESTION_CHARS} characters`);
    expect(questionError('what is 2+2?')).toBeNull();
    expect(promptOf(' what\tis 2+2? ')).toBe('Q: what is 2+2?\nA:');
    await expect(answerQuestion(scriptedPolicy(() => ''), '', { config: PRESETS.classroom, greedy: true, sandbox: printingSandbox([]) })).rejects.toThrow('type a question first');
  });
});
