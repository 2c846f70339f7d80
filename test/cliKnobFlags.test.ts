/** The CLI's knob flags: each mix flag sets its mix, and bad values are usage errors naming the flag. */
import { describe, expect, it } from 'vitest';
import { experimentFromFlags, joinNegativeValues, parseStringFlags, UsageError, wholeNumberFlag } from '../src/cli/cliArgs';
import { decimalNumber, PRESETS } from '../src/core/experiment';

describe('experimentFromFlags', () => {
  it('sets the tier mix and the kind mix from their flags, leaving the preset untouched', () => {
    const config = experimentFromFlags('classroom', { 'tier-mix': '1,0,2', 'kind-mix': '1,0,0.5,0,0.25,0.75' });
    expect(config.tierMix).toEqual({ easy: 1, medium: 0, hard: 2 });
    expect(config.kindMix).toEqual({ arithmetic: 1, compose: 0, search: 0.5, errorProne: 0, multiStep: 0.25, chain: 0.75 });
    expect(PRESETS.classroom.kindMix).toEqual({ arithmetic: 0.35, compose: 0.15, search: 0.05, errorProne: 0.05, multiStep: 0.15, chain: 0.25 });
    // Four or five shares, as written before the multi-step or the chain kind: those kinds get none.
    expect(experimentFromFlags('classroom', { 'kind-mix': '1,0,0.5,0,0.25' }).kindMix).toEqual({ arithmetic: 1, compose: 0, search: 0.5, errorProne: 0, multiStep: 0.25, chain: 0 });
    expect(experimentFromFlags('classroom', { 'kind-mix': '1,0,0.5,0' }).kindMix).toEqual({ arithmetic: 1, compose: 0, search: 0.5, errorProne: 0, multiStep: 0, chain: 0 });
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
    expect(refusal('1,2')).toBe("--kind-mix needs 6 numbers arithmetic,compose,search,errorProne,multiStep,chain, got '1,2'");
    expect(refusal('1,0,0')).toBe("--kind-mix needs 6 numbers arithmetic,compose,search,errorProne,multiStep,chain, got '1,0,0'");
    expect(refusal('1,0,0,0,0,0,0')).toBe("--kind-mix needs 6 numbers arithmetic,compose,search,errorProne,multiStep,chain, got '1,0,0,0,0,0,0'");
    expect(refusal('1,,0,0,0')).toBe("--kind-mix needs 6 numbers arithmetic,compose,search,errorProne,multiStep,chain, got '1,,0,0,0'");
    expect(refusal('0,0,0,0,0')).toBe('--kind-mix: kindMix needs non-negative arithmetic, compose, search, errorProne, multiStep, chain shares that are not all 0');
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

describe('numbers in flags', () => {
  it('are read only when written in decimal: no hex, binary, octal, blanks, separators or Infinity', () => {
    expect(['16', '-3', '+2', '0.5', '.5', '5.', '2e-4', '1E3'].map(decimalNumber)).toEqual([16, -3, 2, 0.5, 0.5, 5, 2e-4, 1000]);
    for (const raw of ['0x10', '0b11', '0o7', '', ' ', ' 5', '5 ', '1_000', 'Infinity', '-Infinity', 'NaN', '1e400', '1,5', '5e', 'e5', '.']) {
      expect(decimalNumber(raw)).toBeNull();
    }
  });

  it('refuses --steps 0x10 (Number() reads it as 16) and the other non-decimal forms, naming the flag', () => {
    const refusal = (flags: Record<string, string>) => {
      try {
        experimentFromFlags('classroom', flags);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return (error as Error).message;
      }
      return null;
    };
    expect(refusal({ steps: '0x10' })).toBe("--steps needs a number, got '0x10'");
    expect(refusal({ 'learning-rate': ' ' })).toBe("--learning-rate needs a number, got ' '");
    expect(refusal({ seed: '0b1' })).toBe("--seed needs a number, got '0b1'");
    expect(refusal({ 'tier-mix': '0x1,1,1' })).toBe("--tier-mix needs 3 numbers easy,medium,hard, got '0x1,1,1'");
    expect(experimentFromFlags('classroom', { steps: '16', 'learning-rate': '2e-4' })).toMatchObject({ steps: 16, learningRate: 2e-4 });
  });

  it('refuses mix shares whose sum overflows (1e308 three times is Infinity, every share over it 0)', () => {
    expect(() => experimentFromFlags('classroom', { 'tier-mix': '1e308,1e308,1e308' })).toThrow(
      "--tier-mix shares add up past the largest number, got '1e308,1e308,1e308'",
    );
    expect(() => experimentFromFlags('classroom', { 'kind-mix': '1e308,1e308,0,0,0' })).toThrow('--kind-mix shares add up past the largest number');
    expect(experimentFromFlags('classroom', { 'tier-mix': '1e307,1e307,1e307' }).tierMix).toEqual({ easy: 1e307, medium: 1e307, hard: 1e307 });
  });

  it('a whole-number flag takes a decimal whole number within its bounds', () => {
    expect(wholeNumberFlag('k', '16', 1, 256)).toBe(16);
    for (const raw of ['0x10', '16.5', '0', '257', '']) expect(() => wholeNumberFlag('k', raw, 1, 256)).toThrow(`--k needs a whole number from 1 to 256, got '${raw}'`);
  });
});

describe('presets named by a flag', () => {
  it("are looked up as the presets' own names: Object's are refused as unknown", () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(() => experimentFromFlags(name, {})).toThrow(`unknown preset '${name}'`);
    }
  });
});
