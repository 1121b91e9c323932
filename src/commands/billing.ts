// tally billing: the figures third-party tools read from the compatible endpoints, in yuan.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { fetchCompatibleBilling, type CompatibleBilling } from '../api/billing.js';
import { type Balance, fetchBalance } from '../api/balance.js';
import { type JsonValue, isJsonNumber, jsonText, numberText } from '../domain/json.js';
import type { Decimal } from '../domain/money.js';
import { emit } from '../output/emit.js';

export function configure(command: Command): void {
  command.option('--compare', 'set the figures beside the native balance and flag a mismatch');
}

/** The ledger keeps 8 decimal places: a derived amount shows at least that many. */
const LEDGER_DECIMALS = 8;

export function ledgerAmount(amount: Decimal): string {
  return amount.toFixed(Math.max(LEDGER_DECIMALS, amount.decimalPlaces()));
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
    native_balance: balance.raw.balance as string,
    native_lifetime_spend: balance.raw.lifetime_spend as string,
    native_total: ledgerAmount(total),
    soft_limit: ledgerAmount(billing.softLimit),
    matches: total.eq(billing.softLimit),
    usage_yuan: ledgerAmount(billing.usageYuan),
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
      remaining: ledgerAmount(billing.remaining),
      ...(comparison ? { compare: comparison } : {}),
    },
    human: () => renderBilling(billing, comparison, ctx),
  });
}

async function renderBilling(billing: CompatibleBilling, comparison: Comparison | undefined, ctx: Context): Promise<string> {
  const [{ renderPanel, drawn }, { formatAmount }, { styleFor }, { isoInZone }] = await Promise.all([
    import('../output/table.js'),
    import('../output/money.js'),
    import('../output/style.js'),
    import('../domain/zone.js'),
  ]);
  const style = await styleFor(ctx);
  const paint = style.paint;
  const exact = ctx.options.exact;
  const yuan = (amount: Decimal | string, currency?: string) => formatAmount(amount, 'account', { exact, currency });
  const rows: Parameters<typeof renderPanel>[0] = [['Soft limit', `${yuan(billing.softLimit)}  (soft_limit_usd: yuan, despite the name)`]];
  if (billing.hardLimit) rows.push(['Hard limit', `${yuan(billing.hardLimit)}  (hard_limit_usd)`]);
  if (billing.systemHardLimit) rows.push(['System hard limit', `${yuan(billing.systemHardLimit)}  (system_hard_limit_usd)`]);
  rows.push(
    ['Usage', `${yuan(billing.usageYuan)}  (total_usage ${billing.usageFen.toFixed()} fen, cumulative)`],
    ['Remaining', `${yuan(billing.remaining)}  (soft_limit_usd − total_usage / 100)`],
  );
  const token: Parameters<typeof renderPanel>[0] = [];
  if (billing.tokenName !== undefined) token.push(['  name', billing.tokenName]);
  if (billing.unlimited) token.push(['  quota', 'unlimited (the key has no quota; its amounts mean nothing)']);
  else for (const { name, amount } of billing.tokenAmounts) token.push([`  ${name}`, yuan(amount, billing.tokenCurrency)]);
  const when = (value: JsonValue): string => {
    if (isJsonNumber(value)) {
      const n = Number(numberText(value));
      if (n === 0 || n === -1) return 'never';
      if (Number.isSafeInteger(n) && n > 0) return isoInZone(n > 1e11 ? Math.floor(n / 1000) : n, ctx.zone);
    }
    return jsonText(value);
  };
  for (const { name, value } of billing.tokenTimes) token.push([`  ${name}`, when(value)]);
  if (billing.tokenCurrency) token.push(['  currency', billing.tokenCurrency]);
  token.push(['  model groups', billing.modelGroups.length ? billing.modelGroups.join(', ') : 'none listed']);
  rows.push(['Token (/api/usage/token/)', ''], ...token);
  if (comparison) {
    const mark = comparison.matches ? paint.green('match') : paint.red('MISMATCH');
    rows.push(['Native balance + lifetime spend', drawn(`${yuan(comparison.native_total)}  vs soft limit ${yuan(comparison.soft_limit)}: ${mark}`)]);
    rows.push([
      'Usage vs lifetime spend',
      comparison.usage_is_account_spend
        ? "equal: usage is the account's spend"
        : `${yuan(comparison.usage_yuan)} vs ${yuan(comparison.native_lifetime_spend)}: expected when the key carries a total cost limit, for then usage is the key's own spend, not the account's`,
    ]);
  }
  const note = paint.dim("Usage is the key's spend when the key carries a total cost limit, the account's otherwise; it is always the all-time total (the service ignores date ranges).");
  const { fitLines } = await import('../output/wrap.js');
  return `${await renderPanel(rows, style)}${await fitLines(note, style.width)}\n`;
}
