/** The lab's progress bars read their ETA as a person would write it. */
import { describe, expect, it } from 'vitest';
import { formatDuration } from '../src/ui/panels/Progress';

describe("the lab's formatDuration", () => {
  it('writes seconds, then minutes and seconds, then hours and minutes', () => {
    expect(formatDuration(7.4)).toBe('7 s');
    expect(formatDuration(61)).toBe('1 min 1 s');
    expect(formatDuration(3 * 3600 + 5 * 60 + 9)).toBe('3 h 5 min');
  });

  it('carries a second that rounds up to 60', () => {
    expect(formatDuration(59.6)).toBe('1 min 0 s');
    expect(formatDuration(119.6)).toBe('2 min 0 s');
    expect(formatDuration(3599.7)).toBe('1 h 0 min');
  });

  it('writes – for a duration not known or below zero', () => {
    expect(formatDuration(Number.NaN)).toBe('–');
    expect(formatDuration(-1)).toBe('–');
  });
});
