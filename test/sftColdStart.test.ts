import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Episode, episodeConfig } from '../src/core/rollout/episode';
import { TOOL_FORMATS } from '../src/core/rollout/formats';
import { PRESETS } from '../src/core/experiment';
import { GPT } from '../src/core/model/gpt';
import { Random } from '../src/core/random';
import { rolloutSample } from '../src/core/rollout/rolloutSample';
import type { PythonSandbox, RunResult } from '../src/core/sandbox/protocol';
import { coldStartTraces, completeTrace, traceResponse, VERBOSE_SHARE, type ColdStartTrace, type TraceDraft } from '../src/core/sft/coldStartTraces';
import { SftTrainer, traceRow } from '../src/core/sft/sftTrainer';
import { REPAIR_SHARE } from '../src/core/sft/tracePlans';
import { SHORT_REASONING } from '../src/core/sft/traceTexts';
import { divisionCode } from '../src/core/corpus/chainSessions';
import { CHAIN_FAMILIES, chainStartOf, chainSteps } from '../src/core/tasks/chainFamilies';
import { firstStepExpression, firstStepValue } from '../src/core/tasks/multiStepFamilies';
import { KINDS, MAX_DEPTH, type Problem } from '../src/core/tasks/problem';
import { answerReward } from '../src/core/tasks/reward';
import { ARITHMETIC_ONLY, isHeldOut } from '../src/core/tasks/splits';
import { createNodeSandbox } from '../src/node/sandbox/nodeSandbox';
import { BOS, EOS, encode, VOCAB_SIZE } from '../src/core/tokenizer';
import { ARITHMETIC_FAMILIES, arithmeticProblem } from '../src/core/tasks/arithmeticFamilies';
import { ERROR_PRONE_FAMILIES, writtenExpression } from '../src/core/tasks/errorProneFamilies';

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
  const draft: TraceDraft = { plan: { kind: 'expression', expression: '347*29+18', code: 'print(347*29+18)' }, reasoning: 'Use Python.', verbose: null };

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

  it('writes a verbose draft with its opening and a closing sentence, and keeps it plain when verbose would not fit', async () => {
    const verboseDraft: TraceDraft = { ...draft, verbose: 'We need 347*29+18. Let me compute it.' };
    const verbose = await completeTrace(product, verboseDraft, TOOL_FORMATS.retool, cannedSandbox('10081\n'), RUN, { ...LIMITS, maxResponseTokens: 400 });
    expect(verbose!.verbose).toBe(true);
    expect(verbose!.segments).toEqual([
      { kind: 'policy', text: ' We need 347*29+18. Let me compute it. <code>\nprint(347*29+18)\n</code>' },
      { kind: 'env', text: '\n<interpreter>\n10081\n</interpreter>\n' },
      { kind: 'policy', text: 'So the answer is 10081.\nAnswer: 10081' },
    ]);
    // 70 + 36 + 37 characters, plus EOS: at 144 it fits as it is; below, only the plain telling (94) does.
    expect((await completeTrace(product, verboseDraft, TOOL_FORMATS.retool, cannedSandbox('10081\n'), RUN, { ...LIMITS, maxResponseTokens: 144 }))!.verbose).toBe(true);
    const plain = await completeTrace(product, verboseDraft, TOOL_FORMATS.retool, cannedSandbox('10081\n'), RUN, { ...LIMITS, maxResponseTokens: 143 });
    expect(plain).toEqual(await completeTrace(product, draft, TOOL_FORMATS.retool, cannedSandbox('10081\n'), RUN, LIMITS));
    expect(plain!.verbose).toBe(false);
  });

  it('drops a repair whose copied call did not fail, and a chain whose output 7 always divides', async () => {
    const times = ERROR_PRONE_FAMILIES.timesProduct(new Random(1));
    const repair: TraceDraft = { plan: { kind: 'repair', written: writtenExpression(times), code: times.solution }, reasoning: 'Use Python.', verbose: null };
    expect(await completeTrace(times, repair, TOOL_FORMATS.retool, cannedSandbox(`${times.answer}\n`), RUN, { ...LIMITS, maxResponseTokens: 400 })).toBeNull();
    const chain = CHAIN_FAMILIES.sevens(new Random(1));
    const calls: string[] = [];
    const sevensForever: PythonSandbox = {
      async run(code: string) {
        calls.push(code);
        return { ok: true, stdout: '49 True\n', stderr: '', timedOut: false, truncated: false, durationMs: 0.1 };
      },
      async close() {},
    };
    const division: TraceDraft = { plan: { kind: 'division', start: chainStartOf(chain) }, reasoning: 'Use Python.', verbose: null };
    expect(await completeTrace(chain, division, TOOL_FORMATS.retool, sevensForever, RUN, { ...LIMITS, maxResponseTokens: 400 })).toBeNull();
    expect(calls).toEqual([divisionCode(chainStartOf(chain)), ...Array<string>(MAX_DEPTH - 1).fill(divisionCode(49))]);
  });
});

// One Python for every test that runs real code.
const sandbox = createNodeSandbox({ size: 1 });
afterAll(() => sandbox.close());

describe('coldStartTraces with the Node sandbox', () => {
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
    // No verbose telling fits 128 tokens, so every trace is the plain one: code, output, answer line.
    for (const t of traces) {
      expect(isHeldOut(t.problem)).toBe(false);
      expect(t.segments[2].text).toBe(`Answer: ${t.problem.answer}`);
      expect(t.segments[1].text).toBe(`\n<interpreter>\n${t.problem.answer}\n</interpreter>\n`);
    }
  }, 60_000);
});

const SYNTAX_ERROR = 'SyntaxError: invalid syntax. Perhaps you forgot a comma?';

/** A trace's calls as the model wrote and read them: the code of each block and the output block after it. */
function callsOf(trace: ColdStartTrace, format = TOOL_FORMATS.retool): { code: string; output: string }[] {
  const { codeOpen, codeClose, outputOpen, outputClose } = format;
  return trace.segments
    .filter((s) => s.kind === 'env')
    .map((env, i) => {
      const policy = trace.segments[2 * i].text;
      const code = policy.slice(policy.lastIndexOf(codeOpen) + codeOpen.length + 1, -codeClose.length - 1);
      return { code, output: env.text.slice(outputOpen.length, -outputClose.length) };
    });
}

describe("cold-start traces for every kind, with the retool preset's mix and cap (npm run sft's)", () => {
  const retool = PRESETS.retool;
  const limits = { maxResponseTokens: retool.maxResponseTokens, maxOutputChars: retool.maxOutputChars };
  let traces: ColdStartTrace[] = [];
  let drafted = 0;

  beforeAll(async () => {
    ({ traces, drafted } = await coldStartTraces({
      count: 160,
      maxDrafts: 192,
      format: TOOL_FORMATS.retool,
      mix: { tierMix: retool.tierMix, kindMix: retool.kindMix },
      rng: new Random(7),
      sandbox,
      runOptions: RUN,
      limits,
    }));
  }, 120_000);

  const ofKind = (kind: string) => traces.filter((t) => t.problem.kind === kind);

  it('draws every kind in its shares, never a held-out problem', () => {
    expect(traces).toHaveLength(160);
    // Every draft fits the cap but a depth-5 chain's (below): one failed draft costs a sixth batch of 32.
    expect(drafted).toBe(192);
    for (const kind of KINDS) {
      expect(ofKind(kind).length).toBeGreaterThan(0);
      expect(Math.abs(ofKind(kind).length / 160 - retool.kindMix[kind])).toBeLessThan(0.06);
    }
    for (const t of traces) expect(isHeldOut(t.problem)).toBe(false);
  });

  it('verifies every trace and fits it in the cap, EOS included', () => {
    for (const t of traces) expect(answerReward(traceResponse(t), true, t.problem)).toBe(1);
    const longest = Math.max(...traces.map((t) => traceResponse(t).length + 1));
    expect(longest).toBeLessThanOrEqual(retool.maxResponseTokens);
    // The cap is used: the long tellings (verbose repairs, deep chains) come within 60 tokens of it.
    expect(longest).toBeGreaterThan(retool.maxResponseTokens - 60);
  });

  it('alternates policy and env segments, one env block per call, and trains on the policy text and EOS only', () => {
    for (const t of traces) {
      const calls = callsOf(t).length;
      expect(t.segments.map((s) => s.kind)).toEqual([...Array<string[]>(calls).fill(['policy', 'env']).flat(), 'policy']);
      const policyChars = t.segments.filter((s) => s.kind === 'policy').reduce((n, s) => n + s.text.length, 0);
      expect(traceRow(t).lossMask.reduce((n, m) => n + m, 0)).toBe(policyChars + 1);
    }
  });

  it('is what an RL episode records: writing the policy text runs the same calls and inserts the same output blocks', async () => {
    const config = episodeConfig({ format: 'retool', maxResponseTokens: limits.maxResponseTokens, maxOutputChars: limits.maxOutputChars }, MAX_DEPTH);
    for (const t of traces) {
      const episode = new Episode(encode(t.prompt), config);
      for (const segment of t.segments.filter((s) => s.kind === 'policy')) {
        for (const id of encode(segment.text)) {
          const action = episode.pushPolicyToken(id);
          if (action.type === 'execute') episode.pushToolResult(await sandbox.run(action.code, RUN));
        }
      }
      expect(episode.pushPolicyToken(EOS).type).toBe('done');
      expect(episode.executedCalls).toBe(callsOf(t).length);
      const sample = rolloutSample(0, t.prompt, t.problem, { episode, logProbs: [], values: [] }, 1);
      expect(sample.segments).toEqual(t.segments);
      expect(answerReward(sample.response, sample.endedWithEos, t.problem)).toBe(1);
    }
  }, 60_000);

  it('fits a depth-5 chain in ZeroTIR\'s fences but not in ReTool\'s longer tags, at the cap', async () => {
    const rng = new Random(3);
    let deepest = CHAIN_FAMILIES.sevens(rng);
    while (deepest.depth !== 5) deepest = CHAIN_FAMILIES.sevens(rng);
    const draft: TraceDraft = { plan: { kind: 'division', start: chainStartOf(deepest) }, reasoning: SHORT_REASONING[0], verbose: null };
    const fenced = await completeTrace(deepest, draft, TOOL_FORMATS.zerotir, sandbox, RUN, limits);
    expect(callsOf(fenced!, TOOL_FORMATS.zerotir)).toHaveLength(5);
    expect(traceResponse(fenced!).length + 1).toBeLessThanOrEqual(retool.maxResponseTokens);
    expect(await completeTrace(deepest, draft, TOOL_FORMATS.retool, sandbox, RUN, limits)).toBeNull();
  });

  it('makes one call per division for a chain, each copying the previous output, and one more that shows 7 no longer divides', () => {
    const chains = ofKind('chain');
    // A depth-4 chain's five calls in ReTool's tags are longer than the cap (a depth-5 chain's, in the test above).
    expect([...new Set(chains.map((t) => t.problem.depth))].sort()).toEqual([1, 2, 3]);
    for (const t of chains) {
      const calls = callsOf(t);
      const start = chainStartOf(t.problem);
      const divided = [start, ...chainSteps(start)];
      expect(calls).toHaveLength(t.problem.depth! + 1);
      expect(calls.map((c) => c.output)).toEqual(divided.map((n, i) => `${Math.floor(n / 7)} ${i < divided.length - 1 ? 'True' : 'False'}`));
      calls.forEach((call, i) => expect(call.code).toBe(divisionCode(i === 0 ? start : Number(calls[i - 1].output.split(' ')[0]))));
      expect(traceResponse(t).endsWith(`Answer: ${divided.at(-1)}`)).toBe(true);
    }
  });

  it('makes two calls for a multi-step problem, the second adding the digits the first printed', () => {
    for (const t of ofKind('multiStep')) {
      const [first, second, ...more] = callsOf(t);
      expect(more).toEqual([]);
      expect(first.code).toBe(`print(${firstStepExpression(t.problem)})`);
      expect(first.output).toBe(String(firstStepValue(t.problem)));
      expect(second.code).toBe(`print(${[...first.output].join('+')})`);
      expect(second.output).toBe(String(t.problem.answer));
    }
  });

  it('repairs a share of error-prone traces: the copied `x` call fails with the environment\'s SyntaxError line, then the fixed call', () => {
    const errorProne = ofKind('errorProne');
    const repairs = errorProne.filter((t) => callsOf(t).length === 2);
    for (const t of repairs) {
      const [copied, fixed] = callsOf(t);
      expect(copied.code).toBe(`print(${writtenExpression(t.problem)})`);
      expect(t.segments[1].text).toBe(`\n<interpreter>\n${SYNTAX_ERROR}\n</interpreter>\n`);
      expect(fixed.code).toBe(t.problem.solution);
    }
    for (const t of errorProne.filter((t) => callsOf(t).length === 1)) expect(callsOf(t)[0].code).toBe(t.problem.solution);
    expect(Math.abs(repairs.length / errorProne.length - REPAIR_SHARE)).toBeLessThan(0.25);
  });

  it('writes compose and search as their solution in one call, arithmetic in one call', () => {
    for (const t of [...ofKind('compose'), ...ofKind('search')]) expect(callsOf(t).map((c) => c.code)).toEqual([t.problem.solution]);
    for (const t of ofKind('arithmetic')) expect(callsOf(t)).toHaveLength(1);
  });

  it('opens about VERBOSE_SHARE of the traces verbosely, with length to lose', () => {
    const verbose = traces.filter((t) => t.verbose);
    const plain = traces.filter((t) => !t.verbose);
    // A chain's verbose draft rarely fits the cap and is then kept plain (0.17 of the shipped cold
    // start's chains are verbose), so the share is judged over the other kinds, whose drafts fit.
    const others = traces.filter((t) => t.problem.kind !== 'chain');
    const share = others.filter((t) => t.verbose).length / others.length;
    expect(Math.abs(share - VERBOSE_SHARE)).toBeLessThan(0.08);
    for (const t of plain) expect(SHORT_REASONING.map((r) => ` ${r} `)).toContain(t.segments[0].text.slice(0, t.segments[0].text.indexOf('<')));
    for (const t of verbose) expect(t.segments[0].text.indexOf('<')).toBeGreaterThan(60);
    const meanLength = (ts: ColdStartTrace[]) => ts.reduce((n, t) => n + traceResponse(t).length, 0) / ts.length;
    expect(meanLength(verbose) - meanLength(plain)).toBeGreaterThan(60);
  });
});

const tinyTrace = (answer: string): ColdStartTrace => ({
  problem: arithmeticProblem('oneDigitSum', 'easy', '2+3', 5),
  prompt: 'Q:',
  segments: [
    { kind: 'policy', text: ' <code>' },
    { kind: 'env', text: answer },
    { kind: 'policy', text: 'A' },
  ],
  verbose: false,
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
