/**
 * Slow motion's advantage sum (advantageArithmetic.ts): the figures it shows are the parts the
 * engine reports, and redoing the sum from them gives the shown advantage.
 */
import { describe, expect, it } from 'vitest';
import { advantageSum, signedAdvantage } from '../src/ui/panels/advantageArithmetic';
import { redo } from './redoAdvantageSum';

describe('advantageSum', () => {
  it("ppo: reward minus the critic's value minus the batch mean, over the batch std", () => {
    expect(advantageSum('ppo', 1, { baseline: 0.4121, shift: 0.0204, scale: 0.4803 })).toBe('(1 − 0.412 − 0.020) ÷ 0.480');
  });

  it('a negative part is added rather than subtracted twice', () => {
    expect(advantageSum('reinforce++', 0, { baseline: 0.125, shift: -0.061, scale: 0.5 })).toBe('(0 − 0.125 + 0.061) ÷ 0.500');
  });

  it('grpo has no shift: (reward − group mean) ÷ group std', () => {
    expect(advantageSum('grpo', 1, { baseline: 0.125, shift: 0, scale: 0.331 })).toBe('(1 − 0.125) ÷ 0.331');
  });

  it('the printed figures recompute the shown two-decimal advantage', () => {
    const parts = { baseline: 0.125, shift: -0.0137, scale: 0.7071 };
    const advantage = (1 - parts.baseline - parts.shift) / parts.scale;
    expect(signedAdvantage(redo(advantageSum('ppo', 1, parts)))).toBe(signedAdvantage(advantage));
    expect(signedAdvantage(advantage)).toBe('+1.26');
    expect(signedAdvantage(-0.8141)).toBe('-0.81');
  });
});
