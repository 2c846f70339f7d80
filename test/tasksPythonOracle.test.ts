/** Every answer the task generators compute in JS equals what real Python (Pyodide) prints. */
import { loadPyodide } from 'pyodide';
import { describe, expect, it } from 'vitest';
import { Random } from '../src/core/random';
import { testSet, trainProblem } from '../src/core/tasks/splits';

async function pythonPrints(expressions: string[]): Promise<string[]> {
  const py = await loadPyodide();
  py.globals.set('expressions_json', JSON.stringify(expressions));
  return JSON.parse(py.runPython('import json\njson.dumps([str(eval(e)) for e in json.loads(expressions_json)])') as string);
}

describe('answers against Python', () => {
  it('match Python for the whole test set and 3,000 training problems', async () => {
    const rng = new Random(11);
    const problems = [...testSet(), ...Array.from({ length: 3000 }, () => trainProblem(rng, { easy: 1, medium: 1, hard: 3 }))];
    const printed = await pythonPrints(problems.map((p) => p.expression));
    const mismatches = problems.filter((p, i) => String(p.answer) !== printed[i]);
    expect(mismatches).toEqual([]);
    expect(problems.filter((p) => p.tier === 'hard').length).toBeGreaterThan(1500);
  }, 60_000);
});
