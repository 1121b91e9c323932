// UTC offsets written as +HH:MM / -HH:MM (also Z, +HH, +HHMM).
import { UsageError } from '../errors.js';

/** Minutes east of UTC; `what` names the flag or setting in the error. */
export function parseUtcOffset(text: string, what = '--utc-offset'): number {
  if (text === 'Z' || text === 'z') return 0;
  const match = /^([+-])(\d{2}):?(\d{2})?$/.exec(text);
  if (!match) throw new UsageError(`${what} "${text}" is not a UTC offset of the form +HH:MM`);
  const hours = Number(match[2]);
  const minutes = Number(match[3] ?? 0);
  const total = hours * 60 + minutes;
  // Offsets that zones use: -12:00 to +14:00, in whole hours, half hours or three quarters.
  if (total > 14 * 60 || (match[1] === '-' && total > 12 * 60) || ![0, 30, 45].includes(minutes)) {
    throw new UsageError(`${what} "${text}" is not a UTC offset in use (-12:00 to +14:00, minutes 00, 30 or 45)`);
  }
  return (match[1] === '-' ? -1 : 1) * total;
}
