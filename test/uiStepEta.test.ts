/** The run's ETA from the wall time between steps, which includes what the step figures leave out. */
import { describe, expect, it } from 'vitest';
import { ARRIVALS_KEPT, etaFromArrivals, withArrival, type StepArrival } from '../src/ui/panels/stepEta';

describe('ETA from step arrivals', () => {
  it('is the mean wall time per step times the steps to go', () => {
    // Steps 3, 4, 6 seen at 0, 2 s and 8 s: 8 s over 3 steps; 10 - 6 = 4 steps to go.
    const arrivals: StepArrival[] = [
      { step: 3, at: 0 },
      { step: 4, at: 2000 },
      { step: 6, at: 8000 },
    ];
    expect(etaFromArrivals(arrivals, 10)).toBeCloseTo((8 / 3) * 4, 12);
    expect(etaFromArrivals(arrivals, 6)).toBe(0);
  });

  it('counts the time between steps that the step figures leave out (a held-out test every 5 steps)', () => {
    // Each step's own figures say 1 s; every 5th step also runs a 3 s test: 1.6 s a step in wall time.
    let arrivals: StepArrival[] = [];
    let at = 0;
    for (let step = 1; step <= 10; step++) {
      at += 1000 + (step % 5 === 0 ? 3000 : 0);
      arrivals = withArrival(arrivals, step, at);
    }
    const eta = etaFromArrivals(arrivals, 20)!;
    // The figures' estimate, 10 steps x 1 s, would be 37.5% low.
    expect(eta).toBeCloseTo(((at - 1000) / 1000 / 9) * 10, 9);
    expect(10 / eta).toBeLessThan(0.65);
  });

  it('needs two arrivals, keeps the newest few, and starts over when the step goes back', () => {
    expect(etaFromArrivals([], 5)).toBeNull();
    expect(etaFromArrivals([{ step: 1, at: 0 }], 5)).toBeNull();
    let arrivals: StepArrival[] = [];
    for (let step = 1; step <= 30; step++) arrivals = withArrival(arrivals, step, step * 1000);
    expect(arrivals).toHaveLength(ARRIVALS_KEPT);
    expect(arrivals[0].step).toBe(30 - ARRIVALS_KEPT + 1);
    expect(withArrival(arrivals, 0, 99)).toEqual([{ step: 0, at: 99 }]);
  });
});
