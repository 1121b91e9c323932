// How the balance reads in a panel: the balance, lifetime spend, plan, the key's daily limit and what is left of it, its own quota.
import type { Context } from '../context.js';
import type { Balance } from '../api/balance.js';
import { jsonText } from '../domain/json.js';
import type { KeyAllowance } from '../figures/key-allowance.js';
import { keyQuotaRows } from './key-quota.js';
import type { BalanceDocument } from '../api/balance.js';
import type { FleetRow } from './fleet.js';

export async function renderBalance(balance: Balance, allowance: KeyAllowance, ctx: Context): Promise<string> {
  const [{ renderPanel, bar, drawn }, { formatAmount, formatPercent }, { styleFor }] = await Promise.all([
    import('../output/table.js'),
    import('../output/money.js'),
    import('../output/style.js'),
  ]);
  const style = await styleFor(ctx);
  const amount = (value: Balance['balance']) => formatAmount(value, 'account', { currency: balance.currency, exact: ctx.options.exact });
  const rows: Parameters<typeof renderPanel>[0] = [
    ['Balance', amount(balance.balance)],
    ['Lifetime spend', amount(balance.lifetimeSpend)],
    ['Plan', balance.hasActivePlan ? 'active' : 'no active plan (billing from balance)'],
  ];
  for (const field of Object.keys(balance.plan)) {
    if (field !== 'has_active_plan') rows.push([`  ${field}`, jsonText(balance.plan[field])]);
  }
  const key = balance.apiKey;
  if (key === null) {
    rows.push(['Key', 'signed in with a device token, no key-level limit']);
  } else {
    rows.push(['Key', [key.name, key.prefix && `(${key.prefix}…)`].filter(Boolean).join(' ') || 'unnamed key']);
    const { used, limit, left, share } = allowance.daily!;
    if (limit === undefined) {
      rows.push(['Daily limit', 'none set']);
      if (used !== undefined) rows.push(['Used today', amount(used)]);
    } else {
      rows.push(['Daily limit', amount(limit)]);
      if (used !== undefined) {
        // A zero limit is all used up: the bar is full.
        rows.push(['Used today', drawn(`${amount(used)}  ${bar(share?.toNumber() ?? 1, 20, style)}  ${formatPercent(used, limit)}`)]);
        rows.push(['Remaining today', amount(left!)]);
      }
    }
  }
  if (allowance.quota.state === 'quota') rows.push(...keyQuotaRows(allowance.quota, ctx.options.exact));
  rows.push(['Currency', balance.currency]);
  return renderPanel(rows, style);
}

/** The balance's row in the fleet's table (its document is the balance record, with the key's quota). */
export const balanceFleetRow: FleetRow<BalanceDocument & { key_quota?: { remaining: string; currency?: string } }> = {
  columns: [
    { header: 'balance', value: (r) => r.balance, amount: true },
    { header: 'lifetime spend', value: (r) => r.lifetime_spend, amount: true, drop: 2 },
    { header: 'today', value: (r) => r.api_key?.daily_cost_used ?? undefined, amount: true, drop: 1, scope: 'key' },
    { header: 'daily limit', value: (r) => r.api_key?.daily_cost_limit ?? undefined, amount: true, total: false, drop: 3 },
    // What the key's own quota leaves, for a key that has one (— for the others).
    // A quota that states no unit (or another) is not shown as an amount in the balance's.
    { header: 'key left', value: (r) => (r.key_quota?.currency === r.currency ? r.key_quota.remaining : undefined), amount: true, drop: 4, scope: 'key' },
  ],
  balance: (r) => r,
};
