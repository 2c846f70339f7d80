/**
 * The lab's fields read numbers as links and the CLI do (issue 25, point 7): Number() took "0x10"
 * for 16, "" for 0 and " 1e3 " for 1000, so a typed "0x10" trained 16 steps where a link's was refused.
 */
import { describe, expect, it } from 'vitest';
import { typedNumber, typedNumbers } from '../src/ui/state/typedNumber';

describe('typedNumber', () => {
  it('reads decimals, with sign, point, exponent and the spaces around them', () => {
    expect([typedNumber('16'), typedNumber(' -2.5 '), typedNumber('.5'), typedNumber('1e-3'), typedNumber('+3.')]).toEqual([16, -2.5, 0.5, 0.001, 3]);
  });

  it('gives NaN for hex, binary, octal, empty, Infinity and words, which Number() reads', () => {
    for (const text of ['0x10', '0b11', '0o7', '', '  ', 'Infinity', '1e400', '1_000', 'ten']) expect(typedNumber(text), text).toBeNaN();
  });

  it('reads comma-separated values one by one', () => {
    expect(typedNumbers('0, 1,2 ,4')).toEqual([0, 1, 2, 4]);
    expect(typedNumbers('0,0x2')[1]).toBeNaN();
    expect(typedNumbers('1,,2')[1]).toBeNaN();
  });
});
