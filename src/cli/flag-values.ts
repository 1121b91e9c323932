// Values of flags that are numbers: checked once, with an error that names the flag.
import { UsageError } from '../errors.js';

/** A whole number in [min, max] given as a flag (or a setting). */
export function wholeNumber(value: unknown, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = String(value).trim();
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`;
    throw new UsageError(`${flag} "${String(value)}" is not ${range}`);
  }
  return n;
}
