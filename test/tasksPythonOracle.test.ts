/** Every answer the task generators compute in JS equals what real Python (Pyodide) prints for the problem's solution. */
import { describe, expect, it } from 'vitest';
import { Random } from '../src/core/random';
import { pythonStdout } from './pythonStdout';
import { evalSet, trainProblem } from '../src/core/tasks/splits';


describe('answers against Python', () => {
  it('match what the solution prints for the whole evaluation set and 3,000 training problems of every kind', async () => {
    const rng = new Random(11);
    const mix = { tierMix: { easy: 1, medium: 1, hard: 3 }, kindMix: { arithmetic: 2, compose: 1, search: 1, errorProne: 1, multiStep: 1, chain: 1 } };
    const problems = [...evalSet(), ...Array.from({ length: 3000 }, () => trainProblem(rng, mix))];
    const printed = await pythonStdout(problems.map((p) => p.solution));
    const mismatches = problems.filter((p, i) => `${p.answer}\n` !== printed[i]);
    expect(mismatches).toEqual([]);
    expect(problems.filter((p) => p.tier === 'hard').length).toBeGreaterThan(1500);
    expect(new Set(problems.map((p) => p.kind)).size).toBe(6);
  }, 120_000);
});
