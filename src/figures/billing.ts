// The compatible family's billing figures set beside the native balance: what third-party tools
// read (soft_limit_usd, total_usage) and whether it agrees with the balance and lifetime spend.
import type { CompatibleBilling } from '../api/billing.js';
import type { Balance } from '../api/balance.js';
import { ledgerAmount } from '../domain/money.js';

export interface Comparison {
  native_balance: string;
  native_lifetime_spend: string;
  /** balance + lifetime_spend, which soft_limit_usd should equal. */
  native_total: string;
  soft_limit: string | null;
  /** null when the subscription was not read or holds the unlimited marker. */
  matches: boolean | null;
  usage_yuan: string | null;
  /** total_usage / 100 equals lifetime_spend: the usage is account spend. */
  usage_is_account_spend: boolean | null;
}

export function compare(billing: CompatibleBilling, balance: Balance): Comparison {
  const total = balance.balance.plus(balance.lifetimeSpend);
  const limit = billing.subscription && !billing.subscription.unlimited ? billing.subscription.softLimit : undefined;
  return {
    native_balance: balance.raw.balance as string,
    native_lifetime_spend: balance.raw.lifetime_spend as string,
    native_total: ledgerAmount(total),
    soft_limit: limit ? ledgerAmount(limit) : null,
    matches: limit ? total.eq(limit) : null,
    usage_yuan: billing.usage ? ledgerAmount(billing.usage.yuan) : null,
    usage_is_account_spend: billing.usage ? billing.usage.yuan.eq(balance.lifetimeSpend) : null,
  };
}

