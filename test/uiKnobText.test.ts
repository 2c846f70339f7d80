/** The knobs' words: help a class can read, mix legends that name every field, and a refused choice shown as itself. */
import { describe, expect, it } from 'vitest';
import { EXPERIMENT_PROPERTIES } from '../src/core/experiment';
import { choiceOptions, KIND_LABELS, KNOBS, mixLegend } from '../src/ui/state/knobs';

/** What the help used to lean on (issue 26): names a class has never met, left unexplained. */
const JARGON = [/value head/i, /\bAdam\b/, /\bGAE\b/, /Schulman/, /\bverl\b/, /coefficient/i, /\bnorm clip/i, /\bpolicy\b/i, /\brollouts?\b/i, /\binspector\b/i, /\bsequences?\b/i, /\blr\b/, /\bprompts?\b/i, /\bfences\b/i];

describe('knob text', () => {
  it('explains every knob in plain words, not with other jargon', () => {
    for (const property of EXPERIMENT_PROPERTIES) {
      for (const word of JARGON) expect(property.help, property.key).not.toMatch(word);
      expect(property.help, property.key).toMatch(/^[A-Z].*\.$/);
    }
    const help = (key: string) => EXPERIMENT_PROPERTIES.find((p) => p.key === key)!.help;
    expect(help('learningRate')).toContain('How big a change each practice round makes to the model');
    expect(help('algorithm')).toContain('critic that guesses the reward');
    expect(help('klEstimator')).toContain('k1 is the plain measure and can dip below 0');
  });

  it('gives every knob a label that starts with a word, a symbol or code name at most in brackets', () => {
    for (const knob of KNOBS) expect(knob.label, knob.key).toMatch(/^[A-Z][A-Za-z]+\b/);
    expect(KNOBS.find((k) => k.key === 'gamma')?.label).toBe('Credit reach (γ)');
    expect(KNOBS.find((k) => k.key === 'gradClip')?.label).toBe('Largest change (grad clip)');
  });

  it('names each kind of problem in the legend, one per share field: six', () => {
    expect(mixLegend('kindMix')).toBe('Kinds of problem (arithmetic / compose / search / error-prone / multi-step / chain)');
    expect(mixLegend('kindMix').split(' / ')).toHaveLength(KIND_LABELS.length);
    expect(KIND_LABELS).toHaveLength(6);
    expect(mixLegend('tierMix')).toBe('Difficulty mix (easy / medium / hard)');
  });

  it('lists a value that is none of the choices as itself, marked, so the select shows it and not the first choice', () => {
    const algorithm = KNOBS.find((k) => k.key === 'algorithm');
    if (algorithm?.kind !== 'choice') throw new Error('algorithm is a choice');
    expect(choiceOptions(algorithm.options, 'evil')).toEqual([...algorithm.options, ['evil', 'evil (not a choice)']]);
    expect(choiceOptions(algorithm.options, 'grpo')).toBe(algorithm.options);
  });
});
