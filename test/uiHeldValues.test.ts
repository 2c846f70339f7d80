/**
 * The loop diagram's stages held on screen (issue 26): at a step's end the worker sends the update,
 * the step and the next step's first stage within a millisecond; each must still be drawn.
 */
import { describe, expect, it } from 'vitest';
import { HeldValues } from '../src/ui/panels/heldValues';

describe('HeldValues', () => {
  it('shows a change at once when the shown value has had its time', () => {
    const held = new HeldValues<string | null>(null, 300);
    expect(held.push('write', 0)).toBe('write');
    expect(held.nextAt()).toBeNull();
    expect(held.push('python', 500)).toBe('python');
  });

  it('shows changes that come together one after another, each for the least time, in order', () => {
    const held = new HeldValues<string | null>('write', 300);
    held.push('python', 0);
    // The step's end: the update, the next question and the next writing within 3 ms.
    expect(held.push('update', 1)).toBe('python');
    expect(held.push('question', 2)).toBe('python');
    expect(held.push('write', 3)).toBe('python');
    expect(held.nextAt()).toBe(300);
    expect(held.advance(299)).toBe('python');
    expect(held.advance(300)).toBe('update');
    expect(held.advance(600)).toBe('question');
    expect(held.advance(900)).toBe('write');
    expect(held.nextAt()).toBeNull();
  });

  it('ends unlit after a lone step: the update, then nothing', () => {
    const held = new HeldValues<string | null>(null, 300);
    held.push('write', 0);
    expect(held.push('update', 1000)).toBe('update');
    expect(held.push(null, 1001)).toBe('update');
    expect(held.advance(1300)).toBeNull();
  });

  it('drops the oldest waiting change past maxPending, and ignores a repeat of the last', () => {
    const held = new HeldValues<string>('a', 300, 2);
    held.push('b', 0);
    held.push('c', 1);
    held.push('c', 2);
    held.push('d', 3);
    expect([held.advance(300), held.advance(600), held.advance(900)]).toEqual(['c', 'd', 'd']);
  });
});
