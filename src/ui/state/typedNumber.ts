/**
 * A number typed into one of the lab's fields, read as a link and the CLI read numbers: decimal
 * only, so "0x10" is not 16 and "1e3" is 1000. Anything else is NaN, which the field's check names.
 */
import { decimalNumber } from '../../core/experiment';

export function typedNumber(text: string): number {
  return decimalNumber(text.trim()) ?? Number.NaN;
}

/** Comma-separated numbers (the sweep's Nmax values), each read as typedNumber. */
export function typedNumbers(text: string): number[] {
  return text.split(',').map(typedNumber);
}
