/**
 * The experiment's one list of properties (EXPERIMENT_PROPERTIES): it names every property of the
 * config once, and the checks (configErrors), the CLI's flags, the URL hash and the lab's labels
 * all follow it, property by property.
 */
import { describe, expect, it } from 'vitest';
import { experimentFromFlags, kebab, knobOptions, knobUsage, UsageError } from '../src/cli/cliArgs';
import { configErrors, EXPERIMENT_PROPERTIES, NUMERIC_BOUNDS, PRESETS, type ExperimentConfig } from '../src/core/experiment';
import { KIND_LABELS, KNOBS, TIER_KEYS } from '../src/ui/state/knobs';
import { FORMAT_LABELS } from '../src/core/archive/startFrom';
import { defaultUrlState, parseLabUrl, serialiseLabHash } from '../src/ui/state/urlState';

const keys = EXPERIMENT_PROPERTIES.map((p) => p.key);
const classroom = PRESETS.classroom;

/** Prompts per step and answers per question that a step can hold together (at their bounds it cannot: memoryEstimate.ts). */
const FITTING_BATCH: Partial<Record<string, number>> = { promptsPerStep: 48, groupSize: 16 };

/** A valid value for each property other than the classroom's: the upper bound (the batch's, one that fits), the last choice, shares 1, 2, ... */
function otherValue(property: (typeof EXPERIMENT_PROPERTIES)[number]): unknown {
  if (property.kind === 'number') return property.key === 'filterLow' ? classroom.filterHigh : (FITTING_BATCH[property.key] ?? property.max);
  if (property.kind === 'choice') return property.choices.find(([value]) => value !== classroom[property.key])![0];
  return Object.fromEntries(property.parts.map(([part], i) => [part, i + 1]));
}

function flagValue(value: unknown): string {
  return typeof value === 'object' ? Object.values(value as Record<string, number>).join(',') : String(value);
}

describe('EXPERIMENT_PROPERTIES', () => {
  it('names every property of every preset, each once', () => {
    expect(new Set(keys).size).toBe(keys.length);
    for (const config of Object.values(PRESETS)) expect([...keys].sort()).toEqual(Object.keys(config).sort());
  });

  it('gives the bounds configErrors holds each number to, and the values it holds each choice and mix to', () => {
    for (const property of EXPERIMENT_PROPERTIES) {
      const error = (value: unknown) => configErrors({ ...classroom, [property.key]: value } as ExperimentConfig)[property.key];
      if (property.kind === 'number') {
        expect(NUMERIC_BOUNDS[property.key]).toEqual([property.min, property.max, property.integer]);
        expect(error(property.min - 1)).toBe(`${property.key} must be between ${property.min} and ${property.max}`);
        expect(error(property.max * 2 + 1)).toBe(`${property.key} must be between ${property.min} and ${property.max}`);
        expect(error(property.min) ?? '').not.toMatch(/between/);
        expect(error(property.max) ?? '').not.toMatch(/between/);
        if (property.integer) expect(error(property.min + 0.5)).toBe(`${property.key} must be a whole number`);
      } else if (property.kind === 'choice') {
        for (const [value] of property.choices) expect(error(value)).toBeUndefined();
        expect(error('nope')).toMatch(new RegExp(`^${property.key} must be ${property.choices[0][0].replace(/\+/g, '\\+')}`));
      } else {
        expect(error(otherValue(property))).toBeUndefined();
        expect(error(Object.fromEntries(property.parts.map(([part]) => [part, 0])))).toMatch(/not all 0$/);
        expect(error(Object.fromEntries(property.parts.slice(1).map(([part]) => [part, 1])))).toMatch(/not all 0$/);
        // each share finite, their sum not: the lab and the URL refuse it as the CLI does
        expect(error(Object.fromEntries(property.parts.map(([part]) => [part, 1e308])))).toMatch(/not all 0$/);
      }
    }
  });

  it('is the CLI: a flag per property, each value set from its flag, each bad one refused naming the flag', () => {
    expect(Object.keys(knobOptions()).sort()).toEqual(keys.map(kebab).sort());
    const usage = knobUsage();
    for (const property of EXPERIMENT_PROPERTIES) {
      const flag = kebab(property.key);
      expect(usage).toContain(`--${flag} `);
      // A space before the help: a long flag (--kind-mix's six parts) once ran into its text.
      expect(usage).toContain(` ${property.help}`);
      const value = otherValue(property);
      expect(experimentFromFlags('classroom', { [flag]: flagValue(value) })[property.key]).toEqual(value);
      const bad = property.kind === 'number' ? String(property.max * 2 + 1) : property.kind === 'choice' ? 'nope' : '1';
      expect(() => experimentFromFlags('classroom', { [flag]: bad })).toThrow(UsageError);
      expect(() => experimentFromFlags('classroom', { [flag]: bad })).toThrow(`--${flag}`);
    }
  });

  it('is the URL: every property in the hash, and each read back from it', () => {
    const state = defaultUrlState();
    state.config = Object.fromEntries(EXPERIMENT_PROPERTIES.map((p) => [p.key, otherValue(p)])) as unknown as ExperimentConfig;
    const hash = serialiseLabHash(state);
    const params = new URLSearchParams(hash);
    for (const property of EXPERIMENT_PROPERTIES) expect(params.get(property.key)).toBe(flagValue(otherValue(property)));
    expect(parseLabUrl('', `#${hash}`).state.config).toEqual(state.config);
    expect(parseLabUrl('', `#${hash}`).problems).toEqual([]);
  });

  it("gives the lab's knobs their labels, help and choices, and shows every property", () => {
    for (const knob of KNOBS) {
      const property = EXPERIMENT_PROPERTIES.find((p) => p.key === knob.key)!;
      expect([knob.label, knob.help]).toEqual([property.label, property.help]);
      if (knob.kind === 'choice' && property.kind === 'choice') expect(knob.options).toEqual(property.choices);
    }
    const mixes = EXPERIMENT_PROPERTIES.filter((p) => p.kind === 'mix').map((p) => p.key);
    expect([...KNOBS.map((k) => k.key), ...mixes].sort()).toEqual([...keys].sort());
    expect(KIND_LABELS.map(([kind]) => kind)).toEqual(Object.keys(classroom.kindMix));
    expect(KIND_LABELS.find(([kind]) => kind === 'errorProne')?.[1]).toBe('error-prone');
    expect(TIER_KEYS).toEqual(['easy', 'medium', 'hard']);
    expect(FORMAT_LABELS).toEqual({ zerotir: 'ZeroTIR (```python)', retool: 'ReTool (<code>)' });
  });
});
