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

/** A number above zero (a ratio, a count of deviations), at most `max`, with up to 4 decimals. */
export function positiveNumber(text: string, flag: string, min = 0, max = 1_000_000): number {
  const value = /^\d{1,7}(?:\.\d{1,4})?$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!(value > min) || value > max) throw new UsageError(`${flag} "${text}" is not a number above ${min}${max < 1_000_000 ? ` and at most ${max}` : ''}`);
  return value;
}

/**
 * A count of tokens as people write it: `200000`, `200,000`, `200_000`, `200k`, `1m` or `1M`
 * (thousands and millions of tokens, as context windows are named: 1k = 1,000), in [min, max].
 */
export function tokenCount(value: unknown, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = String(value).trim();
  const scaled = /^(\d{1,9}(?:\.\d{1,3})?)\s*([kKmM])$/.exec(text);
  if (scaled) {
    const n = Number(scaled[1]) * (scaled[2]!.toLowerCase() === 'k' ? 1_000 : 1_000_000);
    if (Number.isSafeInteger(n)) return wholeNumber(String(n), flag, min, max);
  }
  const grouped = /^\d{1,3}(?:([,_])\d{3}(?:\1\d{3})*)?$/.test(text) ? text.replace(/[,_]/g, '') : text;
  try {
    return wholeNumber(grouped, flag, min, max);
  } catch {
    throw new UsageError(`${flag} "${String(value)}" is not a number of tokens (e.g. 200000, 200,000 or 200k)`);
  }
}
