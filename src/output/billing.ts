// How the compatible billing figures read: the JSON document (the three records as sent, what
// tally derives, what could not be read) and the panel.
import type { Context } from '../context.js';
import type { CompatibleBilling } from '../api/billing.js';
import { type JsonObject, type JsonValue, isJsonNumber, jsonText, numberText } from '../domain/json.js';
import type { Decimal } from '../domain/money.js';
import type { Comparison } from '../figures/billing.js';
import { ledgerAmount } from '../domain/money.js';
import { errorText } from './error-text.js';
import type { Parsed } from '../domain/json.js';
import type { FleetRow } from './fleet.js';

/** The JSON document: the three records as sent (null where one was not read), and what tally derives. */
export interface BillingDocument {
  currency: 'CNY';
  subscription: JsonObject | null;
  usage: JsonObject | null;
  token: JsonObject | null;
  /** What is left, in yuan (a decimal string); null when it cannot be worked out. */
  remaining: string | null;
  unlimited: boolean;
  token_unit: string | null;
  missing: { endpoint: string; kind: string; message: string; status?: number }[];
  compare?: Comparison;
}

export function billingJson(billing: CompatibleBilling, secrets: Context['secrets'], comparison?: Comparison): BillingDocument {
  return {
    currency: 'CNY',
    subscription: billing.subscription?.body ?? null,
    usage: billing.usage?.body ?? null,
    token: billing.token?.body ?? null,
    remaining: billing.remaining ? ledgerAmount(billing.remaining) : null,
    unlimited: billing.subscription?.unlimited === true || billing.token?.unlimited === true,
    token_unit: billing.token ? (billing.token.currency ?? null) : null,
    missing: billing.missing.map(({ path, error }) => {
      const text = errorText(error, secrets);
      return { endpoint: path, kind: text.kind, message: text.message, ...(text.status !== undefined ? { status: text.status } : {}) };
    }),
    ...(comparison ? { compare: comparison } : {}),
  };
}

export async function renderBilling(billing: CompatibleBilling, comparison: Comparison | undefined, ctx: Context): Promise<string> {
  const [{ renderPanel, drawn }, { formatAmount, formatStatedAmount }, { styleFor }, { isoInZone }] = await Promise.all([
    import('../output/table.js'),
    import('../output/money.js'),
    import('../output/style.js'),
    import('../domain/zone.js'),
  ]);
  const style = await styleFor(ctx);
  const paint = style.paint;
  const exact = ctx.options.exact;
  // The panel's figures align on the decimal point, their notes starting in one column.
  const shown = [billing.subscription?.softLimit, billing.subscription?.hardLimit, billing.subscription?.systemHardLimit, billing.usage?.yuan, billing.remaining].filter((a): a is Decimal => a !== undefined && a !== null).map((a) => formatAmount(a, 'account', { exact }));
  const intWidth = (text: string) => (text.includes('.') ? text.indexOf('.') : text.length);
  const head = Math.max(0, ...shown.map(intWidth));
  const wide = Math.max(0, ...shown.map((t) => head - intWidth(t) + t.length));
  const yuan = (amount: Decimal | string) => formatAmount(amount, 'account', { exact });
  const aligned = (amount: Decimal | string) => {
    const text = yuan(amount);
    return `${' '.repeat(Math.max(0, head - intWidth(text)))}${text}`.padEnd(wide);
  };
  const notRead = (path: string) => `not read (${path}: ${errorText(billing.missing.find((m) => m.path === path)!.error, ctx.secrets).message})`;
  const rows: Parameters<typeof renderPanel>[0] = [];
  const sub = billing.subscription;
  if (!sub) rows.push(['Soft limit', notRead('/dashboard/billing/subscription')]);
  else if (sub.unlimited) rows.push(['Soft limit', 'unlimited (soft_limit_usd holds the 100000000 marker, not an amount)']);
  else {
    rows.push(['Soft limit', `${aligned(sub.softLimit)}  (soft_limit_usd: yuan, despite the name)`]);
    if (sub.hardLimit) rows.push(['Hard limit', `${aligned(sub.hardLimit)}  (hard_limit_usd)`]);
    if (sub.systemHardLimit) rows.push(['System hard limit', `${aligned(sub.systemHardLimit)}  (system_hard_limit_usd)`]);
  }
  const usage = billing.usage;
  rows.push(['Usage', usage ? `${aligned(usage.yuan)}  (total_usage ${usage.fen.toFixed()} fen, cumulative)` : notRead('/dashboard/billing/usage')]);
  if (billing.remaining) rows.push(['Remaining', `${aligned(billing.remaining)}  (soft_limit_usd − total_usage / 100)`]);
  else rows.push(['Remaining', sub?.unlimited ? 'unlimited' : 'not known (a record above was not read)']);
  const token = billing.token;
  const tokenRows: Parameters<typeof renderPanel>[0] = [];
  if (!token) tokenRows.push(['  record', notRead('/api/usage/token/')]);
  else {
    if (token.name !== undefined) tokenRows.push(['  name', token.name]);
    if (token.unlimited) tokenRows.push(['  quota', 'unlimited (the key has no quota; its amounts mean nothing)']);
    else for (const { name, amount } of token.amounts) tokenRows.push([`  ${name}`, formatStatedAmount(amount, token.currency, { exact })]);
    const when = (value: JsonValue): string => {
      if (isJsonNumber(value)) {
        const n = Number(numberText(value));
        if (n === 0 || n === -1) return 'never';
        if (Number.isSafeInteger(n) && n > 0) return isoInZone(n > 1e11 ? Math.floor(n / 1000) : n, ctx.zone);
      }
      return jsonText(value);
    };
    for (const { name, value } of token.times) tokenRows.push([`  ${name}`, when(value)]);
    tokenRows.push(['  unit', token.currency ?? 'not stated (raw quota units: not comparable with the yuan figures above)']);
    tokenRows.push(['  model limits', token.modelLimits.length ? token.modelLimits.join(', ') : 'none listed']);
  }
  rows.push(['Token (/api/usage/token/)', ''], ...tokenRows);
  if (comparison) {
    const mark = comparison.matches === null ? paint.dim('not comparable') : comparison.matches ? paint.green('match') : paint.red('MISMATCH');
    rows.push(['Native balance + lifetime spend', drawn(`${yuan(comparison.native_total)}  vs soft limit ${comparison.soft_limit ? yuan(comparison.soft_limit) : 'not known'}: ${mark}`)]);
    rows.push([
      'Usage vs lifetime spend',
      comparison.usage_is_account_spend === null
        ? 'not known (the usage record was not read)'
        : comparison.usage_is_account_spend
          ? "equal: usage is the account's spend"
          : `${yuan(comparison.usage_yuan!)} vs ${yuan(comparison.native_lifetime_spend)}: expected when the key carries a total cost limit, for then usage is the key's own spend, not the account's`,
    ]);
  }
  const note = paint.dim("Usage is the key's spend when the key carries a total cost limit, the account's otherwise; it is always the all-time total (the service ignores date ranges).");
  const { fitLines } = await import('../output/wrap.js');
  return `${await renderPanel(rows, style)}${await fitLines(note, style.width)}\n`;
}

/** The billing figures' row in the fleet's table. */
export const billingFleetRow: FleetRow<Parsed<BillingDocument>> = {
  columns: [{ header: 'remaining', value: (r) => r.remaining ?? undefined, amount: true }],
};
