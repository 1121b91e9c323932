// What a CI run spent, from two readings of the spend counters: at the mark (the start of the
// job) and now. The key's own counter (daily_cost_used) when both readings are of the same day of
// the gateway's grid and it did not go down: this key's spend alone. Otherwise the account's
// lifetime_spend difference: every key's spend, said so.
import { Decimal } from './money.js';

export interface SpendReading {
  lifetimeSpend: string;
  /** The key's counter and the grid day (its start, Unix seconds) it belongs to; null for a device token. */
  key: { dailyCostUsed: string; day: number } | null;
}

export interface RunSpend {
  spend: Decimal;
  basis: 'key' | 'account';
  /** Why that basis, in words. */
  why: string;
}

export function runSpend(mark: SpendReading, now: SpendReading): RunSpend {
  const account = (why: string): RunSpend => ({ spend: new Decimal(now.lifetimeSpend).minus(mark.lifetimeSpend), basis: 'account', why });
  if (!mark.key || !now.key) return account('no key counter to read (a device token): the whole account\'s spend');
  if (mark.key.day !== now.key.day) return account('the gateway\'s day changed since the mark (its key counter restarts each day): the whole account\'s spend');
  const used = new Decimal(now.key.dailyCostUsed).minus(mark.key.dailyCostUsed);
  if (used.isNegative()) return account('the key\'s counter went down since the mark: the whole account\'s spend');
  return { spend: used, basis: 'key', why: 'this key\'s spend today since the mark' };
}

/**
 * A key's spend followed through its daily counter (daily_cost_used), which restarts on each day of
 * the gateway's grid: the spend is what the counter rose by on each day since the start. A day
 * that ended between two readings counts up to its last reading (what came after it is not
 * known: the total is then a floor, `floor`); a counter that went down within a day starts a
 * segment of its own.
 */
export interface KeyCounterTrack {
  /** The day (grid start, Unix seconds) and the counter at the start of the current segment, and its last reading. */
  day: number;
  first: Decimal;
  last: Decimal;
  /** What the segments before this one rose by. */
  carried: Decimal;
  /** Whether some spend may have gone unseen (a day ended, or the counter went down, between two readings). */
  floor: boolean;
}

export function startKeyTrack(reading: { dailyCostUsed: string; day: number }): KeyCounterTrack {
  const value = new Decimal(reading.dailyCostUsed);
  return { day: reading.day, first: value, last: value, carried: new Decimal(0), floor: false };
}

export function followKeyTrack(track: KeyCounterTrack, reading: { dailyCostUsed: string; day: number }): KeyCounterTrack {
  const value = new Decimal(reading.dailyCostUsed);
  // A reading of a day already left behind (a late answer) tells nothing new.
  if (reading.day < track.day) return track;
  if (reading.day === track.day && value.gte(track.last)) return { ...track, last: value };
  // A new day (the counter restarted from zero: what it shows was spent that day), or the counter went down.
  const carried = track.carried.plus(track.last.minus(track.first));
  const newDay = reading.day > track.day;
  return { day: reading.day, first: newDay ? new Decimal(0) : value, last: value, carried, floor: true };
}

export function trackedSpend(track: KeyCounterTrack): Decimal {
  return track.carried.plus(track.last.minus(track.first));
}
