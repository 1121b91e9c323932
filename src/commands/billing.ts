// tally billing: the figures third-party tools read from the compatible endpoints, in yuan.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { fetchCompatibleBilling, type CompatibleBilling } from '../api/billing.js';
import { type Balance, fetchBalance } from '../api/balance.js';
import { decimalText } from '../domain/money.js';
import { emit } from '../output/emit.js';

export function configure(command: Command): void {
  command.option('--compare', 'set the figures beside the native balance and flag a mismatch');
}

export interface Comparison {
  native_balance: string;
  native_lifetime_spend: string;
  /** balance + lifetime_spend, which soft_limit_usd should equal. */
  native_total: string;
  soft_limit: string;
  matches: boolean;
  usage_yuan: string;
  /** total_usage / 100 equals lifetime_spend: the usage is account spend. */
  usage_is_account_spend: boolean;
}

export function compare(billing: CompatibleBilling, balance: Balance): Comparison {
  const total = balance.balance.plus(balance.lifetimeSpend);
  return {
    native_balance: decimalText(balance.balance),
    native_lifetime_spend: decimalText(balance.lifetimeSpend),
    native_total: decimalText(total),
    soft_limit: decimalText(billing.softLimit),
    matches: total.eq(billing.softLimit),
    usage_yuan: decimalText(billing.usageYuan),
    usage_is_account_spend: billing.usageYuan.eq(balance.lifetimeSpend),
  };
}

export async function run(options: Record<string, unknown>, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const [billing, balance] = await Promise.all([
    fetchCompatibleBilling(client),
    options.compare ? fetchBalance(client) : Promise.resolve(undefined),
  ]);
  const comparison = balance ? compare(billing, balance) : undefined;
  await emit(ctx, {
    json: {
      currency: 'CNY',
      subscription: billing.subscription,
      usage: billing.usage,
      token: billing.token,
      remaining: decimalText(billing.remaining),
      ...(comparison ? { compare: comparison } : {}),
    },
    human: () => renderBilling(billing, comparison, ctx),
  });
}

async function renderBilling(billing: CompatibleBilling, comparison: Comparison | undefined, ctx: Context): Promise<string> {
  const [{ renderPanel }, { yuan }, { styleFor }] = await Promise.all([
    import('../output/table.js'),
    import('../output/money.js'),
    import('../output/style.js'),
  ]);
  const style = await styleFor(ctx);
  const paint = style.paint;
  const rows: [string, string, boolean?][] = [
    ['Soft limit', `${yuan(billing.softLimit)}  (soft_limit_usd: yuan, despite the name)`],
  ];
  if (billing.hardLimit) rows.push(['Hard limit', `${yuan(billing.hardLimit)}  (hard_limit_usd)`]);
  if (billing.systemHardLimit) rows.push(['System hard limit', `${yuan(billing.systemHardLimit)}  (system_hard_limit_usd)`]);
  rows.push(
    ['Usage', `${yuan(billing.usageYuan)}  (total_usage ${decimalText(billing.usageFen)} fen, cumulative)`],
    ['Remaining', `${yuan(billing.remaining)}  (soft_limit_usd − total_usage / 100)`],
  );
  const tokenRows: [string, string][] = billing.tokenAmounts.map(({ name, amount }) => [`  ${name}`, yuan(amount, billing.tokenCurrency ?? 'CNY')]);
  for (const { name, value } of billing.tokenOther) tokenRows.push([`  ${name}`, value]);
  if (billing.tokenCurrency) tokenRows.push(['  currency', billing.tokenCurrency]);
  tokenRows.push(['  model groups', billing.modelGroups.length ? billing.modelGroups.join(', ') : 'none listed']);
  rows.push(['Token (/api/usage/token/)', ''], ...tokenRows);
  if (comparison) {
    const mark = comparison.matches ? paint.green('match') : paint.red('MISMATCH');
    rows.push(
      ['Native balance + lifetime spend', `${yuan(comparison.native_total)}  vs soft limit ${yuan(comparison.soft_limit)}: ${mark}`, true],
      ['Usage vs lifetime spend', comparison.usage_is_account_spend ? 'equal: usage is the account\'s spend' : `differ (${yuan(comparison.usage_yuan)} vs ${yuan(comparison.native_lifetime_spend)}): usage is likely the key's own spend (it has a total cost limit)`],
    );
  }
  const note = paint.dim(
    'Usage is the key\'s spend when the key carries a total cost limit, the account\'s otherwise; it is always the all-time total (the service ignores date ranges).',
  );
  return `${await renderPanel(rows, style)}${note}\n`;
}
