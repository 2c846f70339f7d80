import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOOL_FORMATS } from '../src/core/rollout/formats';
import { nucleusFilter, withNucleusFilter } from '../src/core/eval/nucleus';
import { evalBlock, evaluatePassAtOne, passAtOneByProblem } from '../src/core/eval/passAtOne';
import type { GPT } from '../src/core/model/gpt';
import type { PythonSandbox, RunResult } from '../src/core/sandbox/protocol';
import type { Problem } from '../src/core/tasks/problem';
import { testSet } from '../src/core/tasks/splits';

/** The arithmetic part of the test set: questions of the form `what is <expression>?`. */
const arithmeticTestSet = () => testSet().filter((p) => p.kind === 'arithmetic');
import { arithmeticProblem } from '../src/core/tasks/arithmeticFamilies';
import { VOCAB_SIZE } from '../src/core/tokenizer';
import { Random } from '../src/core/random';
import { scriptedPolicy } from './scriptedPolicy';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

const problem = (id: string, tier: Problem['tier']): Problem => ({ ...arithmeticProblem('f', tier, '1+1', 2), id });

describe('pass@1 arithmetic', () => {
  it('averages each problem over its k samples, then over problems', () => {
    expect(passAtOneByProblem([1, 0, 1, 1, 0, 0], 2)).toEqual([0.5, 1, 0]);
    expect(() => passAtOneByProblem([1, 0, 1], 2)).toThrow(/groups of k = 2/);
  });

  it('gives pass@1 by tier and the code-use figures in one block', () => {
    const problems = [problem('a', 'easy'), problem('b', 'hard'), problem('c', 'hard')];
    const episodes = Array.from({ length: 6 }, () => ({ tokens: [5, 5], calls: [] }));
    const block = evalBlock(2, problems, 2, episodes, [1, 0, 1, 1, 0, 0]);
    expect(block.nmax).toBe(2);
    expect(block.samples).toBe(6);
    expect(block['pass@1']).toBeCloseTo(0.5, 12);
    expect(block.byTier).toEqual({ easy: 0.5, medium: null, hard: 0.5 });
    expect(block.codeRatio).toBe(0);
    expect(block.callsHistogram).toEqual([6, 0, 0, 0, 0, 0, 0, 0, 0]);
    // Arithmetic problems are depth 1: no call at all.
    expect(block.callsPerResponseByDepth).toEqual([0, null, null, null, null]);
    expect(block.singleCallShareByDepth).toEqual([null, null, null, null, null]);
  });

  it('gives pass@1 over the problems of each depth: a chain its own, multi-step 2, every other kind 1', () => {
    const problems: Problem[] = [
      problem('a', 'easy'),
      { ...problem('m', 'hard'), kind: 'multiStep' },
      { ...problem('c3', 'hard'), kind: 'chain', depth: 3 },
      { ...problem('c3b', 'hard'), kind: 'chain', depth: 3 },
      { ...problem('c1', 'hard'), kind: 'chain', depth: 1 },
    ];
    const episodes = Array.from({ length: 10 }, () => ({ tokens: [5, 5], calls: [] }));
    // Per problem: 0.5, 1, 0, 0.5, 1.
    const block = evalBlock(4, problems, 2, episodes, [1, 0, 1, 1, 0, 0, 0, 1, 1, 1]);
    expect(block.byDepth).toEqual([0.75, 1, 0.25, null, null]);
  });
});

describe('nucleusFilter', () => {
  const kept = (values: ArrayLike<number>) => Array.from(values, (x) => x !== -Infinity);
  // Probabilities 0.4, 0.3, 0.2, 0.1 at temperature 1: the mass before each is 0, 0.4, 0.7, 0.9.
  const filteredRow = (temperature: number, topP: number) => {
    const row = tf.tensor2d([[4, 3, 2, 1].map(Math.log)]);
    const filtered = nucleusFilter(row, temperature, topP);
    const values = filtered.dataSync();
    tf.dispose([row, filtered]);
    return values;
  };

  it('keeps the most probable tokens until their mass reaches top-p', () => {
    expect(kept(filteredRow(1, 0.3))).toEqual([true, false, false, false]);
    expect(kept(filteredRow(1, 0.65))).toEqual([true, true, false, false]);
    expect(kept(filteredRow(1, 0.75))).toEqual([true, true, true, false]);
    expect(filteredRow(1, 0.65)[1]).toBeCloseTo(Math.log(3), 6);
  });

  it('measures the mass after the temperature: at 2 the top two hold only 0.61', () => {
    // At temperature 2 the probabilities are 0.33, 0.28, 0.23, 0.16 (sqrt of 4, 3, 2, 1 over 6.15).
    expect(kept(filteredRow(2, 0.65))).toEqual([true, true, true, false]);
  });

  it('filters each row on its own, keeps ties at the cut, and leaves logits alone at top-p 1 or temperature 0', () => {
    const two = tf.tensor2d([[4, 3, 2, 1].map(Math.log), [1, 2, 3, 4].map(Math.log)]);
    const filtered = nucleusFilter(two, 1, 0.65);
    expect(kept(filtered.dataSync())).toEqual([true, true, false, false, false, false, true, true]);
    const tied = tf.tensor2d([[2, 1, 1, 0].map(Math.log)]); // 0.5, 0.25, 0.25, 0: both 0.25s sit at the cut
    const tiedFiltered = nucleusFilter(tied, 1, 0.6);
    expect(kept(tiedFiltered.dataSync())).toEqual([true, true, true, false]);
    expect(filteredRow(1, 1)).toEqual(Float32Array.from([4, 3, 2, 1].map(Math.log)));
    expect(filteredRow(0, 0.3)).toEqual(Float32Array.from([4, 3, 2, 1].map(Math.log)));
    expect(() => filteredRow(1, 0)).toThrow('topP must be in (0, 1], got 0');
    tf.dispose([two, filtered, tied, tiedFiltered]);
  });

  it('on 64 random rows keeps exactly the smallest most-probable-first set holding top-p, and leaks no tensor', () => {
    const rng = new Random(5);
    const V = VOCAB_SIZE;
    const logits = Float32Array.from({ length: 64 * V }, () => 3 * rng.normal());
    const before = tf.memory().numTensors;
    for (const [temperature, topP] of [[1, 0.7], [0.7, 0.9], [1.5, 0.3]]) {
      const input = tf.tensor2d(logits, [64, V]);
      const filtered = nucleusFilter(input, temperature, topP);
      const keptMask = kept(filtered.dataSync());
      tf.dispose([input, filtered]);
      for (let b = 0; b < 64; b++) {
        const row = Array.from(logits.subarray(b * V, (b + 1) * V), (x) => Math.exp(x / temperature));
        const total = row.reduce((a, x) => a + x, 0);
        const order = row.map((_, i) => i).sort((i, j) => row[j] - row[i]);
        let mass = 0;
        const expected = new Array<boolean>(V).fill(false);
        for (const i of order) {
          if (mass >= topP * total) break;
          expected[i] = true;
          mass += row[i];
        }
        expect(keptMask.slice(b * V, (b + 1) * V)).toEqual(expected);
      }
    }
    expect(tf.memory().numTensors).toBe(before);
  });
});

/**
 * A scripted policy for the test set: it writes a code block printing the question's expression,
 * then answers with the number in the tool output, except on hard problems, where it adds 1. With
 * no output to read (Nmax 0) it answers -1, which no test problem has.
 */
function scriptedModel(format = TOOL_FORMATS.retool): GPT {
  const respond = (text: string): string => {
    const expression = /what is (.*)\?\nA:/.exec(text)![1];
    const hard = arithmeticTestSet().find((p) => p.expression === expression)!.tier === 'hard';
    const code = ` ${format.codeOpen}\nprint(${expression})\n${format.codeClose}`;
    const response = text.slice(text.indexOf('\nA:') + 3);
    if (response.length < code.length) return code;
    const output = /\n<interpreter>\n(-?\d+)\n<\/interpreter>\n/.exec(response);
    const answer = output === null ? -1 : Number(output[1]) + (hard ? 1 : 0);
    const afterCode = output === null ? '\n' : output[0];
    return `${code}${afterCode}Answer: ${answer}`;
  };
  return scriptedPolicy(respond);
}

/** Prints the value of `print(<expression>)` for test-set expressions. */
function fakeSandbox(): PythonSandbox {
  return {
    async run(code: string): Promise<RunResult> {
      const p = arithmeticTestSet().find((q) => code === `print(${q.expression})`);
      const base = { stderr: '', timedOut: false, truncated: false, durationMs: 0.1 };
      return p ? { ...base, ok: true, stdout: `${p.answer}\n` } : { ...base, ok: false, stdout: '', error: { type: 'NameError', message: 'x' } };
    },
    async close() {},
  };
}

describe('evaluatePassAtOne', () => {
  it('scores k samples per test problem per Nmax, with a block per Nmax named as the report names it', async () => {
    const before = tf.memory().numTensors;
    const problems = arithmeticTestSet();
    const blocks = (await evaluatePassAtOne(scriptedModel(), problems, {
      nmaxList: [0, 1],
      k: 2,
      temperature: 1,
      topP: 0.7,
      seed: 4,
      episode: { format: 'retool', maxResponseTokens: 96, maxOutputChars: 64 },
      sandbox: fakeSandbox(),
      runOptions: { timeoutMs: 1000, maxOutputBytes: 1024 },
    }))!;
    expect(tf.memory().numTensors).toBe(before);
    expect(blocks.map((b) => Object.keys(b).sort())).toEqual(
      Array(2).fill(
        [
          'byDepth', 'byFamily', 'byKind', 'byTier', 'callsHistogram', 'callsPerResponse', 'callsPerResponseByDepth', 'codeLines', 'codePassRate', 'codeRatio',
          'correctCodeCount', 'invocationPosition', 'nmax', 'pass@1', 'perProblem', 'samples', 'selfCorrectedResponses', 'selfCorrectionShare',
          'selfCorrections', 'singleCallShare', 'singleCallShareByDepth', 'standardError',
        ].sort(),
      ),
    );
    const [none, one] = blocks;
    // Nmax 0: code is written but never run, so every answer is -1.
    expect(none).toMatchObject({ nmax: 0, samples: 128, 'pass@1': 0, codeRatio: 1, callsPerResponse: 0, correctCodeCount: 0 });
    expect(none.byTier).toEqual({ easy: 0, medium: 0, hard: 0 });
    expect(none.callsHistogram).toEqual([128, 0, 0, 0, 0, 0, 0, 0, 0]);
    // Nmax 1: easy and medium (32 of 64 problems) right, hard wrong by one.
    expect(one).toMatchObject({ nmax: 1, samples: 128, 'pass@1': 0.5, codeRatio: 1, callsPerResponse: 1, correctCodeCount: 128 });
    expect(one.byTier).toEqual({ easy: 1, medium: 1, hard: 0 });
    expect(one.byKind).toEqual({ arithmetic: 0.5, compose: null, search: null, errorProne: null, multiStep: null, chain: null });
    expect(one.perProblem).toEqual(problems.map((p) => (p.tier === 'hard' ? 0 : 1)));
    expect(none.perProblem).toEqual(problems.map(() => 0));
    expect(one.byFamily.oneDigitSum).toBe(1);
    expect(one.byFamily.power).toBe(0);
    expect(one.byDepth).toEqual([0.5, null, null, null, null]);
    // 64 per-problem scores, half 1 and half 0: sd = sqrt(64/63 * 0.25), over sqrt(64).
    expect(one.standardError).toBeCloseTo(Math.sqrt((64 / 63) * 0.25) / 8, 12);
    expect(none.standardError).toBe(0);
    expect(one).toMatchObject({ codePassRate: 1, singleCallShare: 1, selfCorrections: 0, codeLines: 1 });
    // The fence starts at token 1 (after the space) of responses 70 to 80 tokens long.
    expect(one.invocationPosition).toBeGreaterThan(1 / 80);
    expect(one.invocationPosition).toBeLessThanOrEqual(1 / 70);
    expect(one.callsHistogram).toEqual([0, 128, 0, 0, 0, 0, 0, 0, 0]);
    expect(one.callsPerResponseByDepth).toEqual([1, null, null, null, null]);
    expect(one.singleCallShareByDepth).toEqual([1, null, null, null, null]);
  });

  it('wraps a model so its caches stay its own and only its logits change', () => {
    const model = scriptedModel();
    expect(withNucleusFilter(model, 1, 1)).toBe(model);
    const filtered = withNucleusFilter(model, 1, 0.5);
    const before = tf.memory().numTensors;
    const cache = filtered.newCache(1);
    const { logits, values } = filtered.step(cache, Int32Array.from([1]));
    const row = logits.dataSync();
    expect(row.filter((x) => x !== -Infinity)).toEqual(Float32Array.from([40]));
    // A prefill's logits are filtered too.
    const prefilled = filtered.prefill(filtered.newCache(1), [Int32Array.from([1, 2, 3])]);
    expect(prefilled.logits.dataSync().filter((x) => x !== -Infinity)).toEqual(Float32Array.from([40]));
    tf.dispose([logits, values, prefilled.logits, prefilled.values]);
    expect(tf.memory().numTensors).toBe(before);
  });
});
