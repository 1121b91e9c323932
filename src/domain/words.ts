// Words for counts, in messages a figure writes (an error, a warning) and in views alike.
import { groupDigits } from './decimal-text.js';

/** `7 days`, `1 hour`, `24 hours`, `1,000 records`. */
export function plural(count: number, noun: string): string {
  return `${groupDigits(String(count))} ${noun}${count === 1 ? '' : 's'}`;
}
