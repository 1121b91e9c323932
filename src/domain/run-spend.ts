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
