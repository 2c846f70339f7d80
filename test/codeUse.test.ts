import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../src/core/rollout/episode';
import { binnedCallsHistogram, callsBinLabel, CALLS_HISTOGRAM_BINS, codeUseFigures, responseCodeUse, type CodeUseProblem } from '../src/core/metrics/codeUse';
import { accuracyByGroup, emptyStepMetrics, rolloutFigures, SCALAR_METRICS } from '../src/core/metrics/stepMetrics';
import type { Rollout } from '../src/core/rollout/rollout';
import type { RunResult } from '../src/core/sandbox/protocol';

const OK: RunResult = { ok: true, stdout: '1\n', stderr: '', timedOut: false, truncated: false, durationMs: 1 };
const FAILED: RunResult = { ...OK, ok: false, stdout: '', error: { type: 'NameError', message: "name 'x' is not defined" } };

/** A call that ran and printed `stdout`. */
const printed = (stdout: string): RunResult => ({ ...OK, stdout });

function call(code: string, start: number, result?: RunResult): ToolCall {
  return { code, start, executed: result !== undefined, result };
}

/** A response of `length` tokens (their ids do not matter here) with the given calls. */
function episode(length: number, calls: ToolCall[]) {
  return { tokens: new Array<number>(length).fill(5), calls };
}

/** What the figures read of a problem: its answer, and its depth through its kind. */
const arithmetic = (answer: number): CodeUseProblem => ({ answer, kind: 'arithmetic' });
const chain = (answer: number, depth: number): CodeUseProblem => ({ answer, kind: 'chain', depth });

// Hand-built responses:
// noCode: 40 tokens, no code.
// oneCall: 50 tokens, one two-line call at token 10 that ran (printed 1).
// selfCorrected: 100 tokens, a call at 20 that errored, then one at 60 that ran and printed 1.
// errorThenError: 80 tokens, two errored calls at 40 and 60, then an unexecuted block (Nmax reached).
// unexecuted: 20 tokens, one block at 5 that was not executed (Nmax 0).
const noCode = episode(40, []);
const oneCall = episode(50, [call('a = 6*7\nprint(a)', 10, OK)]);
const selfCorrected = episode(100, [call('print(x)', 20, FAILED), call('x = 3\n\nprint(x)', 60, OK)]);
const errorThenError = episode(80, [call('print(x)', 40, FAILED), call('print(y)', 60, FAILED), call('print(1)', 70)]);
const unexecuted = episode(20, [call('print(2+2)', 5)]);

// 127253 = 53 * 7^4 divided by 7 until 7 no longer divides it, as the corpus's cells do: 18179, 2597,
// 371, 53 (depth 4), then the cell that says 7 does not divide 53; the first try a SyntaxError.
const SYNTAX: RunResult = { ...FAILED, error: { type: 'SyntaxError', message: "'(' was never closed" } };
const division = (n: number) => `q = ${n}\nprint(q//7, q%7==0)`;
const divisions = [
  call('q = 127253\nprint(q//7, q%7==0', 0, SYNTAX),
  call(division(127253), 10, printed('18179 True\n')),
  call(division(18179), 20, printed('2597 True\n')),
  call(division(2597), 30, printed('371 True\n')),
  call(division(371), 40, printed('53 True\n')),
  call(division(53), 50, printed('7 False\n')),
];

describe('responseCodeUse', () => {
  it('counts a self-correction: an errored call followed by one that ran and printed the answer of a correct response', () => {
    expect(responseCodeUse(selfCorrected, 1, 1)).toEqual({
      codeBlocks: 2,
      codeLines: 3, // the blank line is not code
      executedCalls: 2,
      correctCalls: 1,
      lastCallOk: true,
      invocationPosition: 0.2,
      selfCorrections: 1,
    });
    // On a line of its own among others, with spaces around it.
    expect(responseCodeUse(episode(30, [call('print(x)', 0, FAILED), call('print(2); print(7)', 9, printed('2\n 7 \n'))]), 1, 7).selfCorrections).toBe(1);
  });

  it('counts no repair in a wrong response, nor one that printed something else the answer does not use', () => {
    // The same repair, the response scored 0.
    expect(responseCodeUse(selfCorrected, 0, 1).selfCorrections).toBe(0);
    // The repair printed 1, the answer is 3 and nothing after it.
    expect(responseCodeUse(selfCorrected, 1, 3).selfCorrections).toBe(0);
    // The repair printed 7; the next call printed the answer from scratch, without the 7.
    const ignored = episode(60, [call('print(x)', 0, FAILED), call('print(7)', 10, printed('7\n')), call('print(1+2)', 30, printed('3\n'))]);
    expect(responseCodeUse(ignored, 1, 3).selfCorrections).toBe(0);
    // A printed 3 is not the 3 of 33: numbers are matched whole.
    const partial = episode(60, [call('print(x)', 0, FAILED), call('print(1+2)', 10, printed('3\n')), call('print(33*2)', 30, printed('66\n'))]);
    expect(responseCodeUse(partial, 1, 66).selfCorrections).toBe(0);
  });

  it('counts no self-correction when the later call errors too, and ignores unexecuted blocks for calls', () => {
    const use = responseCodeUse(errorThenError, 1, 1);
    expect(use.selfCorrections).toBe(0);
    expect(use.executedCalls).toBe(2);
    expect(use.codeBlocks).toBe(3);
    expect(use.lastCallOk).toBe(false);
    expect(use.invocationPosition).toBe(0.5);
  });

  it('counts a chain repair whose output each later call carries on to the answer', () => {
    expect(responseCodeUse(episode(60, divisions), 1, 53).selfCorrections).toBe(1);
    // A second error mid-chain, repaired with the number the chain had reached: two corrections.
    const twice = [...divisions.slice(0, 3), call('q = 2597\nprint(q/ /7, q%7==0)', 25, SYNTAX), ...divisions.slice(3)];
    expect(responseCodeUse(episode(60, twice), 1, 53).selfCorrections).toBe(2);
    // The chain broken after the repair: 18179 is used by the next call, but its 2597 by nothing; 53 is computed afresh.
    const broken = [...divisions.slice(0, 3), call('print(127253//2401)', 30, printed('53\n'))];
    expect(responseCodeUse(episode(60, broken), 1, 53).selfCorrections).toBe(0);
    // The right chain in a wrong response (the answer line said 52): none.
    expect(responseCodeUse(episode(60, divisions), 0, 53).selfCorrections).toBe(0);
  });

  it('gives null position and last-call state to a response without code', () => {
    expect(responseCodeUse(noCode, 1, 1)).toEqual({
      codeBlocks: 0,
      codeLines: 0,
      executedCalls: 0,
      correctCalls: 0,
      lastCallOk: null,
      invocationPosition: null,
      selfCorrections: 0,
    });
  });
});

describe('codeUseFigures', () => {
  it('aggregates hand-built responses into the figures ReTool and ZeroTIR report', () => {
    const episodes = [noCode, oneCall, selfCorrected, errorThenError, unexecuted];
    const rewards = [1, 1, 1, 0, 0];
    const f = codeUseFigures(episodes, rewards, episodes.map(() => arithmetic(1)));
    expect(f.codeRatio).toBeCloseTo(4 / 5, 12);
    expect(f.codeLines).toBeCloseTo((0 + 2 + 3 + 3 + 1) / 5, 12);
    expect(f.correctCodeCount).toBe(2);
    // Tool-using: oneCall (last ok), selfCorrected (last ok), errorThenError (last failed).
    expect(f.codePassRate).toBeCloseTo(2 / 3, 12);
    expect(f.invocationPosition).toBeCloseTo((0.2 + 0.2 + 0.5 + 0.25) / 4, 12);
    expect(f.callsPerResponse).toBeCloseTo((0 + 1 + 2 + 2 + 0) / 5, 12);
    expect(f.callsHistogram).toEqual([2, 1, 2, 0, 0, 0, 0, 0, 0]);
    // Correct and tool-using: oneCall (1 call) and selfCorrected (2 calls).
    expect(f.singleCallShare).toBe(0.5);
    expect(f.selfCorrections).toBe(1);
    // One response (selfCorrected) of five repaired an error into the answer.
    expect(f.selfCorrectedResponses).toBe(1);
    expect(f.selfCorrectionShare).toBeCloseTo(1 / 5, 12);
    // All depth 1: the per-depth figures are the overall ones, in the first slot.
    expect(f.singleCallShareByDepth).toEqual([0.5, null, null, null, null]);
    expect(f.callsPerResponseByDepth).toEqual([1, null, null, null, null]);
    expect(codeUseFigures([], [], []).selfCorrectionShare).toBeNull();
  });

  it('counts self-corrections by the answer: a wrong response, an ignored repair and an answer the repair never printed are none', () => {
    const ignored = episode(60, [call('print(x)', 0, FAILED), call('print(7)', 10, printed('7\n')), call('print(1+2)', 30, printed('3\n'))]);
    const episodes = [selfCorrected, selfCorrected, ignored, episode(60, divisions)];
    const f = codeUseFigures(episodes, [1, 0, 1, 1], [arithmetic(1), arithmetic(1), arithmetic(3), chain(53, 4)]);
    expect(f.selfCorrections).toBe(2);
    expect(f.selfCorrectedResponses).toBe(2);
    expect(f.selfCorrectionShare).toBe(0.5);
    // The same responses asked for other answers: only the chain's repair still counts.
    expect(codeUseFigures(episodes, [1, 0, 1, 1], [arithmetic(2), arithmetic(1), arithmetic(9), chain(53, 4)]).selfCorrections).toBe(1);
  });

  it('gives single-call share and calls per answer by depth, null where no response counts', () => {
    const one = episode(10, [call('print(53)', 0, printed('53\n'))]);
    const two = episode(20, [call('print(371)', 0, printed('371\n')), call(division(371), 10, printed('53 True\n'))]);
    // Four divisions, answered after the fourth (as a run at Nmax 4 answers), without the fifth call that checks.
    const four = episode(60, divisions.slice(1, 5));
    const problems = [arithmetic(53), { answer: 53, kind: 'multiStep' } as const, chain(53, 2), chain(53, 2), chain(53, 4), chain(53, 4), chain(53, 4)];
    const f = codeUseFigures([one, two, one, two, four, one, noCode], [1, 1, 1, 0, 1, 1, 1], problems);
    // Depth 1: one right answer in one call. Depth 2: the multi-step in two calls (right), a chain in one (right), a chain in two (wrong).
    // Depth 4: four calls, one call (right), no call (right, not tool-using).
    expect(f.singleCallShareByDepth).toEqual([1, 0.5, null, 0.5, null]);
    expect(f.callsPerResponseByDepth).toEqual([1, 5 / 3, null, 5 / 3, null]);
    // The overall figures are unchanged in meaning: over every response.
    expect(f.singleCallShare).toBeCloseTo(3 / 5, 12);
    expect(f.callsPerResponse).toBeCloseTo(11 / 7, 12);
    expect(() => codeUseFigures([one], [1], [chain(53, 6)])).toThrow(/depth 6: the per-depth figures hold depths 1 to 5/);
  });

  it('bins executed calls 0 to 7, then 8 or more, always nine bins', () => {
    const withCalls = (n: number) => episode(100, Array.from({ length: n }, (_, i) => call('print(1)', i, OK)));
    const f = codeUseFigures([0, 1, 7, 8, 9, 12].map(withCalls), [0, 0, 0, 0, 0, 0], Array(6).fill(arithmetic(1)));
    expect(CALLS_HISTOGRAM_BINS).toBe(9);
    expect(f.callsHistogram).toEqual([1, 1, 0, 0, 0, 0, 0, 1, 3]);
    expect(Array.from({ length: CALLS_HISTOGRAM_BINS }, (_, bin) => callsBinLabel(bin))).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8+']);
    // A histogram recorded before the bins were fixed: a short one padded, a long one folded into 8+.
    expect(binnedCallsHistogram([3, 1])).toEqual([3, 1, 0, 0, 0, 0, 0, 0, 0]);
    expect(binnedCallsHistogram([0, 1, 0, 0, 0, 0, 0, 0, 2, 1, 0, 4])).toEqual([0, 1, 0, 0, 0, 0, 0, 0, 7]);
  });

  it('leaves shares null when there is nothing to count', () => {
    const f = codeUseFigures([noCode], [0], [arithmetic(1)]);
    expect(f).toEqual({
      codeRatio: 0,
      codeLines: 0,
      correctCodeCount: 0,
      codePassRate: null,
      invocationPosition: null,
      callsPerResponse: 0,
      callsHistogram: [1, 0, 0, 0, 0, 0, 0, 0, 0],
      singleCallShare: null,
      singleCallShareByDepth: [null, null, null, null, null],
      callsPerResponseByDepth: [0, null, null, null, null],
      selfCorrections: 0,
      selfCorrectedResponses: 0,
      selfCorrectionShare: 0,
    });
  });

  it('refuses mismatched rewards or problems', () => {
    expect(() => codeUseFigures([noCode, oneCall], [1], [arithmetic(1), arithmetic(1)])).toThrow(/2 episodes but 1 rewards/);
    expect(() => codeUseFigures([noCode, oneCall], [1, 1], [arithmetic(1)])).toThrow(/2 episodes but 1 problems/);
  });
});

describe('StepMetrics code-use figures', () => {
  it('are computed per step by rolloutFigures and listed as scalars', () => {
    const rollouts = [oneCall, selfCorrected].map((e) => ({ episode: { ...e, policyMask: e.tokens.map(() => 1) }, logProbs: [], values: [] })) as unknown as Rollout[];
    // Both print 1 (OK's stdout): the right answer of the first, and the unrewarded second's.
    const figures = rolloutFigures(rollouts, [1, 0], [arithmetic(1), chain(1, 3)]);
    expect(figures.codeRatio).toBe(1);
    expect(figures.correctCodeCount).toBe(2);
    // The repair of the second printed its answer, but the response scored 0.
    expect(figures.selfCorrections).toBe(0);
    expect(figures.selfCorrectionShare).toBe(0);
    expect(rolloutFigures(rollouts, [1, 1], [arithmetic(1), chain(1, 3)]).selfCorrectionShare).toBe(0.5);
    expect(figures.singleCallShare).toBe(1);
    expect(figures.callsHistogram).toEqual([0, 1, 1, 0, 0, 0, 0, 0, 0]);
    expect(figures.singleCallShareByDepth).toEqual([1, null, null, null, null]);
    expect(figures.callsPerResponseByDepth).toEqual([1, null, 2, null, null]);
    expect(figures.invocationPosition).toBeCloseTo(0.2, 12);
    const empty = emptyStepMetrics(3);
    expect(figures.unclaimedToolAnswerShare).toBe(0.5);
    expect(rolloutFigures(rollouts, [1, 0], [arithmetic(7), arithmetic(1)]).unclaimedToolAnswerShare).toBe(1);
    for (const name of ['codeRatio', 'codeLines', 'correctCodeCount', 'codePassRate', 'invocationPosition', 'singleCallShare', 'selfCorrections', 'selfCorrectionShare', 'unclaimedToolAnswerShare'] as const) {
      expect(SCALAR_METRICS).toContain(name);
      expect(empty[name]).toBeNull();
    }
    expect(empty.singleCallShareByDepth).toBeNull();
    expect(empty.callsPerResponseByDepth).toBeNull();
  });
});

describe('accuracy per kind and family', () => {
  it('averages rewards over each kind drawn (null for a kind not drawn) and each family, in name order', () => {
    const problems = [
      { kind: 'arithmetic', family: 'power' },
      { kind: 'arithmetic', family: 'modulo' },
      { kind: 'arithmetic', family: 'modulo' },
      { kind: 'search', family: 'cubeRoot' },
    ] as const;
    const { accuracyByKind, accuracyByFamily } = accuracyByGroup([...problems], [1, 0, 1, 0]);
    expect(accuracyByKind).toEqual({ arithmetic: 2 / 3, compose: null, search: 0, errorProne: null, multiStep: null, chain: null });
    expect(Object.entries(accuracyByFamily)).toEqual([['cubeRoot', 0], ['modulo', 0.5], ['power', 1]]);
  });
});
