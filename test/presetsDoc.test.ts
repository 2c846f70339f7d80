/**
 * docs/tasks.md's presets table is what the presets are: the sweeps and curves in the docs were
 * measured with those rows, so a preset that changes without its row fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRESETS, type ExperimentConfig } from '../src/core/experiment';
import { KINDS } from '../src/core/tasks/problem';

const table = readFileSync(join(__dirname, '..', 'docs', 'tasks.md'), 'utf8')
  .split('\n')
  .filter((line) => /^\| (classroom|quick|ablation|retool|no-tool) \|/.test(line))
  .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));

const numbersIn = (cell: string) => (cell.match(/\d+(?:\.\d+)?(?:e-?\d+)?/g) ?? []).map(Number);

/** The config fields a row states, read from its cells. */
function rowFields(cells: string[]): Partial<ExperimentConfig> {
  const [, mix, draws, promptsByGroup, steps, minibatch, rate, cap] = cells;
  const [learningRate, halvedAfter] = numbersIn(rate);
  return {
    kindMix: Object.fromEntries(KINDS.map((kind, i) => [kind, numbersIn(mix)[i]])) as ExperimentConfig['kindMix'],
    promptSampling: draws as ExperimentConfig['promptSampling'],
    promptsPerStep: numbersIn(promptsByGroup)[0],
    groupSize: numbersIn(promptsByGroup)[1],
    steps: Number(steps),
    minibatchSize: numbersIn(minibatch)[0],
    learningRate,
    learningRateDecaySteps: rate.endsWith('constant') ? 0 : halvedAfter,
    maxResponseTokens: Number(cap),
  };
}

describe("docs/tasks.md's presets table", () => {
  it('has a row for every preset but no-tool (the classroom at Nmax 0)', () => {
    expect(table.map((cells) => cells[0]).sort()).toEqual(Object.keys(PRESETS).filter((name) => name !== 'no-tool').sort());
    expect(PRESETS['no-tool']).toEqual({ ...PRESETS.classroom, nmax: 0 });
  });

  it.each(table.map((cells) => [cells[0], cells] as const))('states %s as it is', (name, cells) => {
    const fields = rowFields(cells);
    const preset = PRESETS[name];
    expect(fields).toEqual(Object.fromEntries(Object.keys(fields).map((key) => [key, preset[key as keyof ExperimentConfig]])));
  });
});
