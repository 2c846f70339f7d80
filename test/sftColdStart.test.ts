import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_FORMATS } from '../src/core/env/formats';
import { GPT } from '../src/core/model/gpt';
import { Random } from '../src/core/random';
import type { PythonSandbox, RunResult } from '../src/core/sandbox/protocol';
import { coldStartTraces, completeTrace, traceResponse, type ColdStartTrace } from '../src/core/sft/coldStartTraces';
import { SftTrainer, traceRow } from '../src/core/sft/sftTrainer';
import type { Problem } from '../src/core/tasks/problem';
import { ARITHMETIC_ONLY, isHeldOut } from '../src/core/tasks/splits';
import { createNodeSandbox } from '../src/node/sandbox/nodeSandbox';
import { BOS, EOS, encode, VOCAB_SIZE } from '../src/core/tokenizer';
import { ARITHMETIC_FAMILIES, arithmeticProblem } from '../src/core/tasks/arithmeticFamilies';

const product: Problem = arithmeticProblem('productPlusTerm', 'hard', '347*29+18', 10081);
const RUN = { timeoutMs: 2000, maxOutputBytes: 1024 };
const LIMITS = { maxResponseTokens: 96, maxOutputChars: 64 };

/** A sandbox that prints `stdout` for any code, or fails with a NameError when stdout is null. */
function cannedSandbox(stdout: string | null): PythonSandbox {
  return {
    async run(): Promise<RunResult> {
      const base = { stderr: '', timedOut: false, truncated: false, durationMs: 0.1 };
      if (stdout === null) return { ...base, ok: false, stdout: '', error: { type: 'NameError', message: "name 'x' is not defined" } };
      return { ...base, ok: true, stdout };
    },
    async close() {},
  };
}

describe('completeTrace', () => {
  const draft = { reasoning: 'Use Python.', code: 'print(347*29+18)' };

  it('writes the ReTool trace with the sandbox output as the interpreter block', async () => {
    const trace = await completeTrace(product, draft, TOOL_FORMATS.retool, cannedSandbox('10081\n'), RUN, LIMITS);
    expect(trace!.prompt).toBe('Q: what is 347*29+18?\nA:');
    expect(trace!.segments).toEqual([
      { kind: 'policy', text: ' Use Python. <code>\nprint(347*29+18)\n</code>' },
      { kind: 'env', text: '\n<interpreter>\n10081\n</interpreter>\n' },
      { kind: 'policy', text: 'Answer: 10081' },
    ]);
  });

  it('writes ZeroTIR fences as an option', async () => {
    const trace = await completeTrace(product, draft, TOOL_FORMATS.zerotir, cannedSandbox('10081\n'), RUN, LIMITS);
    expect(traceResponse(trace!)).toBe(' Use Python. ```python\nprint(347*29+18)\n```\n```output\n10081\n```\nAnswer: 10081');
  });

  it('drops a trace whose output does not verify, whose code failed, or that is longer than an RL response', async () => {
    expect(await completeTrace(product, draft, TOOL_FORMATS.retool, cannedSandbox('10082\n'), RUN, LIMITS)).toBeNull();
    expect(await completeTrace(product, draft, TOOL_FORMATS.retool, cannedSandbox(null), RUN, LIMITS)).toBeNull();
    expect(await completeTrace(product, draft, TOOL_FORMATS.retool, cannedSandbox('10081 apples\n'), RUN, LIMITS)).toBeNull();
    // The ReTool trace above is 44 + 36 + 13 = 93 characters, plus EOS.
    expect(await completeTrace(product, draft, TOOL_FORMATS.retool, cannedSandbox('10081\n'), RUN, { ...LIMITS, maxResponseTokens: 93 })).toBeNull();
    expect(await completeTrace(product, draft, TOOL_FORMATS.retool, cannedSandbox('10081\n'), RUN, { ...LIMITS, maxResponseTokens: 94 })).not.toBeNull();
  });
});

describe('coldStartTraces with the Node sandbox', () => {
  const sandbox = createNodeSandbox({ size: 1 });
  afterAll(() => sandbox.close());

  it('verifies every family and code form in real Python, and never uses a test question', async () => {
    const { traces, drafted } = await coldStartTraces({
      count: 48,
      maxDrafts: 64,
      format: TOOL_FORMATS.retool,
      mix: { tierMix: { easy: 1, medium: 1, hard: 2 }, kindMix: ARITHMETIC_ONLY },
      rng: new Random(5),
      sandbox,
      runOptions: RUN,
      // Room for the longer code forms, which a 96-token response often cannot hold in ReTool tags.
      limits: { ...LIMITS, maxResponseTokens: 128 },
    });
    expect(traces).toHaveLength(48);
    expect(drafted).toBeLessThanOrEqual(64);
    const families = new Set(traces.map((t) => t.problem.family));
    expect([...families].sort()).toEqual(Object.keys(ARITHMETIC_FAMILIES).sort());
    // Each alternative code form appears and verified.
    const code = traces.map((t) => t.segments[0].text).join('\n');
    for (const form of ['print(sum([', 'x = ', 'print(pow(', ' % ']) expect(code).toContain(form);
    for (const t of traces) {
      expect(isHeldOut(t.problem)).toBe(false);
      expect(t.segments[2].text).toBe(`Answer: ${t.problem.answer}`);
      expect(t.segments[1].text).toBe(`\n<interpreter>\n${t.problem.answer}\n</interpreter>\n`);
    }
  }, 60_000);
});

const tinyTrace = (answer: string): ColdStartTrace => ({
  problem: arithmeticProblem('oneDigitSum', 'easy', '2+3', 5),
  prompt: 'Q:',
  segments: [
    { kind: 'policy', text: ' <code>' },
    { kind: 'env', text: answer },
    { kind: 'policy', text: 'A' },
  ],
});

describe('traceRow', () => {
  it('puts loss on the policy text and EOS only: not on the prompt, not on the interpreter output', () => {
    const { ids, lossMask } = traceRow(tinyTrace('5'));
    expect(ids).toEqual([BOS, ...encode('Q: <code>5A'), EOS]);
    //               BOS Q  :  ' ' <  c  o  d  e  >  5  A  EOS
    expect(lossMask).toEqual([0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1]);
  });
});

describe('SftTrainer', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
  });

  it('masks targets the way traceRow says, shifted by one position', () => {
    const model = GPT.init({ vocabSize: VOCAB_SIZE, contextLength: 16, nLayer: 1, nHead: 2, nEmbd: 8, mlpRatio: 2 }, 1);
    const trainer = new SftTrainer(model, [tinyTrace('5')], { seed: 1, steps: 1, batchSize: 1, rowLength: 16, learningRate: 1e-3, warmupSteps: 1, gradClip: 1 });
    const { inputs, targets, mask } = trainer.batchArrays([0]);
    const { ids, lossMask } = traceRow(tinyTrace('5'));
    expect([...inputs.slice(0, 12)]).toEqual(ids.slice(0, 12));
    expect([...targets.slice(0, 12)]).toEqual(ids.slice(1));
    expect([...mask]).toEqual([...lossMask.slice(1), 0, 0, 0, 0]);
    trainer.dispose();
    model.dispose();
  });

  it('lowers the loss on its traces in a short run, leaking no tensors', async () => {
    const model = GPT.init({ vocabSize: VOCAB_SIZE, contextLength: 32, nLayer: 1, nHead: 2, nEmbd: 16, mlpRatio: 2 }, 3);
    const traces = ['5', '7', '12', '40'].map(tinyTrace);
    const trainer = new SftTrainer(model, traces, { seed: 2, steps: 40, batchSize: 4, rowLength: 32, learningRate: 1e-2, warmupSteps: 1, gradClip: 1 });
    // Adam makes its slot variables on the first step.
    const losses: number[] = [(await trainer.trainStep()).loss];
    const before = tf.memory().numTensors;
    for (let i = 1; i < 40; i++) losses.push((await trainer.trainStep()).loss);
    expect(tf.memory().numTensors).toBe(before);
    // The policy text is the same in every trace, so the loss can fall far below the initial ~ln(99) = 4.6.
    expect(losses[0]).toBeGreaterThan(4);
    expect(losses.at(-1)!).toBeLessThan(losses[0] / 3);
    trainer.dispose();
    model.dispose();
  });
});
