/** The CLI's knob flags: each mix flag sets its mix, and bad values are usage errors naming the flag. */
import { describe, expect, it } from 'vitest';
import { experimentFromFlags, joinNegativeValues, parseStringFlags, UsageError } from '../src/cli/cliArgs';
import { PRESETS } from '../src/core/experiment';

describe('experimentFromFlags', () => {
  it('sets the tier mix and the kind mix from their flags, leaving the preset untouched', () => {
    const config = experimentFromFlags('classroom', { 'tier-mix': '1,0,2', 'kind-mix': '1,0,0.5,0,0.25' });
    expect(config.tierMix).toEqual({ easy: 1, medium: 0, hard: 2 });
    expect(config.kindMix).toEqual({ arithmetic: 1, compose: 0, search: 0.5, errorProne: 0, multiStep: 0.25 });
    expect(PRESETS.classroom.kindMix).toEqual({ arithmetic: 0.35, compose: 0.2, search: 0.1, errorProne: 0.15, multiStep: 0.2 });
  });

  it('refuses a kind mix of the wrong length, a blank share, or shares configErrors refuses', () => {
    const refusal = (raw: string) => {
      try {
        experimentFromFlags('classroom', { 'kind-mix': raw });
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return (error as Error).message;
      }
      return null;
    };
    expect(refusal('1,2')).toBe("--kind-mix needs 5 numbers arithmetic,compose,search,errorProne,multiStep, got '1,2'");
    expect(refusal('1,0,0,0')).toBe("--kind-mix needs 5 numbers arithmetic,compose,search,errorProne,multiStep, got '1,0,0,0'");
    expect(refusal('1,,0,0,0')).toBe("--kind-mix needs 5 numbers arithmetic,compose,search,errorProne,multiStep, got '1,,0,0,0'");
    expect(refusal('0,0,0,0,0')).toBe('--kind-mix: kindMix needs non-negative arithmetic, compose, search, errorProne, multiStep shares that are not all 0');
    expect(refusal('-1,0,0,1,0')).toMatch(/^--kind-mix: kindMix needs non-negative/);
  });
});

describe('a negative number after a flag', () => {
  it('is read as the flag\'s value, so the range check explains it (not parseArgs\' "argument is ambiguous")', () => {
    expect(joinNegativeValues(['--nmax', '-3', '--seed', '2'], ['nmax', 'seed'])).toEqual(['--nmax=-3', '--seed', '2']);
    expect(joinNegativeValues(['--learning-rate', '-.5'], ['learning-rate'])).toEqual(['--learning-rate=-.5']);
    // Not a number, or after a flag that takes no value: left for parseArgs to judge.
    expect(joinNegativeValues(['--nmax', '-h'], ['nmax'])).toEqual(['--nmax', '-h']);
    expect(joinNegativeValues(['--force', '-3'], ['nmax'])).toEqual(['--force', '-3']);
    const flags = parseStringFlags(['--nmax', '-3'], ['nmax']);
    expect(() => experimentFromFlags('classroom', flags)).toThrow('--nmax: nmax must be between 0 and 16');
  });
});
