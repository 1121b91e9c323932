// UTC offsets written as +HH:MM / -HH:MM (also Z, +HH, +HHMM).
import { UsageError } from '../errors.js';

/** Minutes east of UTC. */
export function parseUtcOffset(text: string): number {
  if (text === 'Z' || text === 'z') return 0;
  const match = /^([+-])(\d{2}):?(\d{2})?$/.exec(text);
  if (!match) throw new UsageError(`UTC offset "${text}" is not of the form +HH:MM`);
  const hours = Number(match[2]);
  const minutes = Number(match[3] ?? 0);
  if (hours > 14 || minutes > 59) throw new UsageError(`UTC offset "${text}" is out of range`);
  return (match[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

export function formatUtcOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
