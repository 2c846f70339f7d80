/** configErrors' messages as the lab shows them: knobs named by the labels beside their fields. */
import { describe, expect, it } from 'vitest';
import { configErrors, PRESETS } from '../src/core/experiment';
import { screenErrors, screenMessage } from '../src/ui/state/screenErrors';

describe('messages in the screen’s words', () => {
  it('names each knob by its label, and writes 1e-7 as a decimal', () => {
    const errors = screenErrors(configErrors({ ...PRESETS.classroom, learningRate: 1, nmax: 99, seed: -1, filterLow: 0.9, filterHigh: 0.5 }));
    expect(errors).toEqual({
      learningRate: '“Learning rate” must be between 0.0000001 and 0.1',
      nmax: '“Nmax (code calls)” must be between 0 and 16',
      seed: '“Seed” must be between 0 and 2147483647',
      filterLow: '“Drop groups below (filter low)” must not exceed “Drop groups above (filter high)”',
    });
  });

  it('names the kinds of problem as their share fields do', () => {
    const mix = { arithmetic: 0, compose: 0, search: 0, errorProne: 0, multiStep: 0, chain: 0 };
    expect(screenErrors(configErrors({ ...PRESETS.classroom, kindMix: mix })).kindMix).toBe(
      '“Kinds of problem” needs non-negative arithmetic, compose, search, error-prone, multi-step, chain shares that are not all 0',
    );
  });

  it('leaves a plain word that is also a key alone inside a sentence, and a message already in words alone', () => {
    expect(screenMessage('steps', 'steps must be a whole number')).toBe('“Training steps” must be a whole number');
    expect(screenMessage('promptsPerStep', 'Questions × answers = 9 steps of seed text')).toBe('Questions × answers = 9 steps of seed text');
    expect(screenMessage('dualClip', 'dualClip must be 0 (off) or above 1')).toBe('“Second update limit (dual clip c)” must be 0 (off) or above 1');
    expect(screenMessage('gradClip', 'gradClip must be between 1e-6 and 1000')).toBe('“Largest change (grad clip)” must be between 0.000001 and 1000');
  });
});
