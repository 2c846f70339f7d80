import { describe, expect, it } from 'vitest';
import { benchSandbox, summarize } from '../src/bench/sandboxBenchmark';
import type { Interpreter, RunResult } from '../src/core/sandbox/protocol';

/** Answers at once; a sleeping run times out and asks to be replaced, as a killed interpreter does. */
function instantFactory() {
  const started: Interpreter[] = [];
  const factory = async (): Promise<Interpreter> => {
    let recycle = false;
    let served = 0;
    const interpreter: Interpreter = {
      get needsRecycle() {
        return recycle;
      },
      get runsServed() {
        return served;
      },
      async run(code): Promise<RunResult> {
        served++;
        const killed = code.includes('time.sleep');
        recycle ||= killed;
        return { ok: !killed, stdout: '', stderr: '', timedOut: killed, truncated: false, durationMs: 0 };
      },
      async terminate() {},
    };
    started.push(interpreter);
    return interpreter;
  };
  return { factory, started };
}

describe('sandbox benchmark', () => {
  it('summarizes samples by nearest rank', () => {
    expect(summarize([5, 1, 4, 2, 3])).toEqual({ n: 5, median: 3, p95: 5, min: 1, max: 5 });
    const twenty = Array.from({ length: 20 }, (_, i) => 20 - i);
    expect(summarize(twenty)).toEqual({ n: 20, median: 10, p95: 19, min: 1, max: 20 });
    expect(summarize([0.12345])).toEqual({ n: 1, median: 0.123, p95: 0.123, min: 0.123, max: 0.123 });
  });

  it('measures every part and reports a row per pool size and workload', async () => {
    const { factory, started } = instantFactory();
    const options = { coldStarts: 2, standbyRestarts: 2, warmCalls: 7, throughputCalls: 9, poolSizes: [1, 3] };
    const report = await benchSandbox(factory, 'fake', options);
    expect(report.label).toBe('fake');
    expect(report.coldStartMs.n).toBe(2);
    expect(report.standbyStartMs.n).toBe(2);
    expect(report.warmCallMs.n).toBe(7);
    expect(report.throughput.map((row) => [row.size, row.workload, row.calls])).toEqual([
      [1, 'arithmetic', 9],
      [1, 'cpuBound', 9],
      [3, 'arithmetic', 9],
      [3, 'cpuBound', 9],
    ]);
    // 2 cold; standby part: 1 slot + 1 standby + a refill per kill; warm calls: 1; throughput: 1 + 3
    expect(started).toHaveLength(2 + (2 + 2) + 1 + 4);
  });
});
