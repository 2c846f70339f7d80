import { describe, expect, it } from 'vitest';
import { pipelineCriterion, type StepRun } from '../src/bench/stepBench';

function stepRun(nmax: number, total: number, sandboxCallSeconds: number): StepRun {
  return {
    nmax,
    seconds: { generate: total / 2, execute: 0, update: total / 2, total },
    responses: 128,
    policyTokens: 5000,
    sandboxCalls: 100,
    sandboxCallSeconds,
    tensorsLeaked: 0,
    flops: 1e9,
    split: { kernels: total / 2, readback: 0, other: total / 2 },
  };
}

describe('pipelineCriterion (issue 5: Nmax 2 step <= 1.2 x (Nmax 0 step + call time / pool size))', () => {
  it('divides the Nmax 2 step by the Nmax 0 step plus its calls shared over the pool', () => {
    // ideal = 10 + 4 / 2 = 12; 13.2 / 12 = 1.1
    expect(pipelineCriterion(stepRun(2, 13.2, 4), stepRun(0, 10, 0), 2)).toEqual({ idealSeconds: 12, ratio: 1.1, met: true });
  });

  it('fails a step that took more than 1.2x the ideal', () => {
    // ideal = 10 + 1 / 4 = 10.25; 12.5 / 10.25 = 1.2195...
    expect(pipelineCriterion(stepRun(2, 12.5, 1), stepRun(0, 10, 0), 4)).toEqual({ idealSeconds: 10.25, ratio: 1.22, met: false });
  });
});
