import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../src/core/env/episode';
import { codeUseFigures, responseCodeUse } from '../src/core/metrics/codeUse';
import { accuracyByGroup, emptyStepMetrics, rolloutFigures, SCALAR_METRICS } from '../src/core/metrics/stepMetrics';
import type { Rollout } from '../src/core/env/rollout';
import type { RunResult } from '../src/core/sandbox/protocol';

const OK: RunResult = { ok: true, stdout: '1\n', stderr: '', timedOut: false, truncated: false, durationMs: 1 };
const FAILED: RunResult = { ...OK, ok: false, stdout: '', error: { type: 'NameError', message: "name 'x' is not defined" } };

function call(code: string, start: number, result?: RunResult): ToolCall {
  return { code, start, executed: result !== undefined, result };
}

/** A response of `length` tokens (their ids do not matter here) with the given calls. */
function episode(length: number, calls: ToolCall[]) {
  return { tokens: new Array<number>(length).fill(5), calls };
}

// Hand-built responses:
// noCode: 40 tokens, no code.
// oneCall: 50 tokens, one two-line call at token 10 that ran.
// selfCorrected: 100 tokens, a call at 20 that errored, then one at 60 that ran (a self-correction).
// errorThenError: 80 tokens, two errored calls at 40 and 60, then an unexecuted block (Nmax reached).
// unexecuted: 20 tokens, one block at 5 that was not executed (Nmax 0).
const noCode = episode(40, []);
const oneCall = episode(50, [call('a = 6*7\nprint(a)', 10, OK)]);
const selfCorrected = episode(100, [call('print(x)', 20, FAILED), call('x = 3\n\nprint(x)', 60, OK)]);
const errorThenError = episode(80, [call('print(x)', 40, FAILED), call('print(y)', 60, FAILED), call('print(1)', 70)]);
const unexecuted = episode(20, [call('print(2+2)', 5)]);

describe('responseCodeUse', () => {
  it('counts a self-correction: an errored call followed by one that ran', () => {
    expect(responseCodeUse(selfCorrected)).toEqual({
      codeBlocks: 2,
      codeLines: 3, // the blank line is not code
      executedCalls: 2,
      correctCalls: 1,
      lastCallOk: true,
      invocationPosition: 0.2,
      selfCorrections: 1,
    });
  });

  it('counts no self-correction when the later call errors too, and ignores unexecuted blocks for calls', () => {
    const use = responseCodeUse(errorThenError);
    expect(use.selfCorrections).toBe(0);
    expect(use.executedCalls).toBe(2);
    expect(use.codeBlocks).toBe(3);
    expect(use.lastCallOk).toBe(false);
    expect(use.invocationPosition).toBe(0.5);
  });

  it('gives null position and last-call state to a response without code', () => {
    expect(responseCodeUse(noCode)).toEqual({
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
    const f = codeUseFigures(episodes, rewards);
    expect(f.codeRatio).toBeCloseTo(4 / 5, 12);
    expect(f.codeLines).toBeCloseTo((0 + 2 + 3 + 3 + 1) / 5, 12);
    expect(f.correctCodeCount).toBe(2);
    // Tool-using: oneCall (last ok), selfCorrected (last ok), errorThenError (last failed).
    expect(f.codePassRate).toBeCloseTo(2 / 3, 12);
    expect(f.invocationPosition).toBeCloseTo((0.2 + 0.2 + 0.5 + 0.25) / 4, 12);
    expect(f.callsPerResponse).toBeCloseTo((0 + 1 + 2 + 2 + 0) / 5, 12);
    expect(f.callsHistogram).toEqual([2, 1, 2]);
    // Correct and tool-using: oneCall (1 call) and selfCorrected (2 calls).
    expect(f.singleCallShare).toBe(0.5);
    expect(f.selfCorrections).toBe(1);
    // One response (selfCorrected) of five has an errored call followed by a successful one.
    expect(f.selfCorrectedResponses).toBe(1);
    expect(f.selfCorrectionShare).toBeCloseTo(1 / 5, 12);
    expect(codeUseFigures([], []).selfCorrectionShare).toBeNull();
  });

  it('leaves shares null when there is nothing to count', () => {
    const f = codeUseFigures([noCode], [0]);
    expect(f).toEqual({
      codeRatio: 0,
      codeLines: 0,
      correctCodeCount: 0,
      codePassRate: null,
      invocationPosition: null,
      callsPerResponse: 0,
      callsHistogram: [1],
      singleCallShare: null,
      selfCorrections: 0,
      selfCorrectedResponses: 0,
      selfCorrectionShare: 0,
    });
  });

  it('refuses mismatched rewards', () => {
    expect(() => codeUseFigures([noCode, oneCall], [1])).toThrow(/2 episodes but 1 rewards/);
  });
});

describe('StepMetrics code-use figures', () => {
  it('are computed per step by rolloutFigures and listed as scalars', () => {
    const rollouts = [oneCall, selfCorrected].map((e) => ({ episode: { ...e, policyMask: e.tokens.map(() => 1) }, logProbs: [], values: [] })) as unknown as Rollout[];
    // Both print 1 (OK's stdout): the right answer of the first, and the unrewarded second's.
    const figures = rolloutFigures(rollouts, [1, 0], [1, 1]);
    expect(figures.codeRatio).toBe(1);
    expect(figures.correctCodeCount).toBe(2);
    expect(figures.selfCorrections).toBe(1);
    expect(figures.singleCallShare).toBe(1);
    expect(figures.invocationPosition).toBeCloseTo(0.2, 12);
    const empty = emptyStepMetrics(3);
    expect(figures.selfCorrectionShare).toBe(0.5);
    expect(figures.unclaimedToolAnswerShare).toBe(0.5);
    expect(rolloutFigures(rollouts, [1, 0], [7, 1]).unclaimedToolAnswerShare).toBe(1);
    for (const name of ['codeRatio', 'codeLines', 'correctCodeCount', 'codePassRate', 'invocationPosition', 'singleCallShare', 'selfCorrections', 'selfCorrectionShare', 'unclaimedToolAnswerShare'] as const) {
      expect(SCALAR_METRICS).toContain(name);
      expect(empty[name]).toBeNull();
    }
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
    expect(accuracyByKind).toEqual({ arithmetic: 2 / 3, compose: null, search: 0, errorProne: null, multiStep: null });
    expect(Object.entries(accuracyByFamily)).toEqual([['cubeRoot', 0], ['modulo', 0.5], ['power', 1]]);
  });
});
