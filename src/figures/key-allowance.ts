// The figure "what this key may spend": its daily limit and what today has used of it (the
// balance record's api_key), its own total quota (the token record), and that quota where it can
// be set against the balance (stated in the balance's unit). One typed figure for every reader:
// the balance and status panels, check's and guard's gates, the statusline, the forecast (today
// against the limit; the runway on the key's quota, at the key's own pace, is the forecast's).
import type { Context } from '../context.js';
import type { Balance, KeyLimit } from '../api/balance.js';
import { Decimal } from '../domain/money.js';
import type { KeyQuota, KeyQuotaFigure } from './key-quota.js';
import { balanceOf } from './balance.js';

/** Today against the key's daily limit, as the gateway's balance record states it. */
export interface DailyAllowance {
  /** What the key has spent today (the gateway's day); undefined when the record states none. */
  used: Decimal | undefined;
  /** The key's daily limit; undefined when none is set. */
  limit: Decimal | undefined;
  /** What today leaves under the limit, never below zero (limit and spend both known). */
  left: Decimal | undefined;
  /** Spend ÷ limit (1 is all of it), where both are known and the limit is not zero. */
  share: Decimal | undefined;
}

export interface KeyAllowance {
  currency: string;
  /** Undefined when signed in with a device token: no key, no key-level limit. */
  daily: DailyAllowance | undefined;
  /** The key's own total quota: one, none, or not read now (said, never a zero). */
  quota: KeyQuotaFigure;
  /** The quota where it can be set against the balance: one stated in the balance's own unit. */
  comparableQuota: KeyQuota | undefined;
}

/** The daily part, from the balance record's key (null: a device token). */
export function dailyAllowance(key: Pick<KeyLimit, 'dailyUsed' | 'dailyLimit'> | null): DailyAllowance | undefined {
  if (key === null) return undefined;
  const { dailyUsed: used, dailyLimit: limit } = key;
  const both = used !== undefined && limit !== undefined;
  return {
    used,
    limit,
    left: both ? Decimal.max(limit.minus(used), 0) : undefined,
    share: both && !limit.isZero() ? used.div(limit) : undefined,
  };
}

export function allowanceOf(balance: Balance, quota: KeyQuotaFigure): KeyAllowance {
  return {
    currency: balance.currency,
    daily: dailyAllowance(balance.apiKey),
    quota,
    comparableQuota: quota.state === 'quota' && quota.quota.currency === balance.currency ? quota.quota : undefined,
  };
}

/**
 * What this key may spend, from the computation's balance and key quota (each asked once,
 * whoever asks). `quota: false`: the token record is not asked (a budget does without it).
 * `forGate`: a remembered failure to read the quota is not served.
 */
export async function keyAllowanceOf(ctx: Context, options: { quota?: boolean; forGate?: boolean } = {}): Promise<KeyAllowance> {
  const notAsked: KeyQuotaFigure = { state: 'none', reason: 'not asked' };
  // The token record's reader loads when it is asked (a hook reading today's limit does without it).
  const quota = options.quota === false ? Promise.resolve(notAsked) : import('./key-quota.js').then(({ keyQuotaOf }) => keyQuotaOf(ctx, options.forGate));
  const [balance, figure] = await Promise.all([balanceOf(ctx), quota]);
  return allowanceOf(balance, figure);
}
