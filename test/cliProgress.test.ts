/** The CLI's progress line reads its durations as a person would write them. */
import { describe, expect, it } from 'vitest';
import { formatDuration, progressLine } from '../src/cli/progress';

describe('formatDuration', () => {
  it('writes seconds under a minute, then minutes and two-digit seconds', () => {
    expect(formatDuration(7.4)).toBe('7s');
    expect(formatDuration(61)).toBe('1m01s');
    expect(formatDuration(549)).toBe('9m09s');
  });

  it('carries a second that rounds up to 60 into the minutes', () => {
    expect(formatDuration(539.6)).toBe('9m00s');
    expect(formatDuration(59.7)).toBe('1m00s');
  });

  it('writes -- for a duration not known yet', () => {
    expect(formatDuration(Number.POSITIVE_INFINITY)).toBe('--');
  });
});

describe('progressLine', () => {
  it('shows the bar, the step, the figures, elapsed and ETA', () => {
    expect(progressLine(40, 80, 0, 'acc 0.50')).toMatch(/^\[=+ +\] 40\/80 acc 0\.50 \| .* elapsed, ETA /);
  });
});
