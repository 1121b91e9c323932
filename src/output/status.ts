// How `tally status` reads: one panel (balance and plan, today against the limit, the last 7 days
// as a sparkline, the week's top models, an alert, the forecast and the budgets) and the window
// under it.
import type { Context } from '../context.js';
import type { Balance } from '../api/balance.js';
import type { Decimal } from '../domain/money.js';
import { isDecimalString } from '../domain/decimal-text.js';
import { fixedZone } from '../domain/zone.js';
import type { Scope } from '../domain/records.js';
import type { StatusData } from '../figures/status.js';
import { keyQuotaRows } from './key-quota.js';
import { describeWindow } from './window-text.js';
import { escapeControl } from './escape.js';
import { describeGrid } from './usage.js';
import { forecastRows, runwayCell } from './forecast.js';
import { budgetLines } from './budgets.js';
import type { StatusDocument } from '../figures/status.js';
import type { Parsed } from '../domain/json.js';
import type { FleetRow } from './fleet.js';

/** Whose figures a row shows, when the gateway says: two scopes are never set side by side without a word. */
export function whose(scope: Scope | undefined): string {
  return scope === 'account' ? ' (whole account)' : scope === 'key' ? ' (this key)' : '';
}

/** ▁▂▃▄▅▆▇█ for each value, scaled to the largest (a shape to glance at; the total beside it is exact). */
export function sparkline(values: number[]): string {
  const blocks = '▁▂▃▄▅▆▇█';
  const largest = Math.max(...values, 0);
  return values.map((v) => (largest === 0 ? blocks[0] : blocks[Math.min(7, Math.floor((v / largest) * 7.999))])).join('');
}

export async function renderStatus(data: StatusData, ctx: Context): Promise<string> {
  const [{ renderPanel, bar, drawn }, { formatAmount, formatCount, formatPercent }, { styleFor }, { fitLines }] = await Promise.all([
    import('../output/table.js'),
    import('../output/money.js'),
    import('../output/style.js'),
    import('../output/wrap.js'),
  ]);
  const style = await styleFor(ctx);
  const { balance } = data.loaded;
  const amount = (value: Decimal | string) => formatAmount(value, 'account', { currency: balance.currency, exact: ctx.options.exact });
  const rows: Parameters<typeof renderPanel>[0] = [
    ['Balance', `${amount(balance.balance)} · lifetime spend ${amount(balance.lifetimeSpend)} · ${balance.hasActivePlan ? 'plan active' : 'no active plan (billing from balance)'}`],
  ];
  const daily = data.loaded.allowance.daily;
  if (daily === undefined) rows.push(['Today', 'signed in with a device token: no key-level limit']);
  else if (daily.used !== undefined && daily.limit !== undefined && daily.share !== undefined) {
    rows.push(['Today', drawn(`${amount(daily.used)} of ${amount(daily.limit)}  ${bar(daily.share.toNumber(), 20, style)}  ${formatPercent(daily.used, daily.limit)}`)]);
  } else if (daily.used !== undefined) rows.push(['Today', `${amount(daily.used)} (the key has no daily limit)`]);
  rows.push(...keyQuotaRows(data.loaded.allowance.quota, ctx.options.exact));
  const money = data.loaded.metric;
  const week = data.week;
  if (money) {
    const values = week.buckets.map((b) => (isDecimalString(b[money]) ? Number(b[money]) : 0));
    const total = week.totals[money];
    const calls = week.shape?.metrics.find((m) => m.type === 'number' && /call|request|count/i.test(m.name));
    const callText = calls && week.totals[calls.name] !== undefined ? `, ${formatCount(String(week.totals[calls.name]))} ${calls.name}` : '';
    rows.push([`Last ${data.weekDays} days`, `${sparkline(values)}  ${isDecimalString(total) ? amount(total) : ''}${callText}${whose(week.scope)}`]);
  } else rows.push([`Last ${data.weekDays} days`, 'no usage to show']);
  if (data.modelFields && data.topModels.length > 0) {
    rows.push(['Top models', `${data.topSpend.map((m) => `${m.model} ${amount(m.spend.toFixed())}`).join(' · ')}${whose(data.modelsScope)}`]);
  }
  if (data.alert) {
    const { findingMessage } = await import('../output/anomalies.js');
    rows.push(['Alert', drawn(style.paint.yellow(`today: ${findingMessage(data.alert, { rule: data.alertRule, labelZone: fixedZone(data.loaded.series.dayGrid.offset) }, ctx.options.exact)} (tally anomalies)`))]);
  }
  const forecast = (await forecastRows(data.loaded, ctx)).filter(([label]) => label !== 'Today');
  rows.push(...forecast);
  if (data.budgets) for (const [name, line] of await budgetLines(data.budgets, ctx)) rows.push([`Budget ${name}`, line]);
  if (data.proxy) {
    const p = data.proxy;
    const booked = p.booked_calls === 0 ? 'estimated from usage' : p.awaiting === 0 ? 'booked by the log' : `${amount(p.booked)} booked by the log, ${formatCount(String(p.awaiting))} calls estimated until it books them`;
    rows.push(['Proxy', drawn(`${escapeControl(p.url)}: ${amount(p.spent)} through it since ${escapeControl(p.started_at.slice(11, 16))} UTC (${booked}), ${formatCount(String(p.calls))} calls, ${formatCount(String(p.refused))} refused, ${amount(p.in_flight)} in flight`)]);
  }
  const note = `${describeWindow(week.window, fixedZone(data.loaded.series.dayGrid.offset))}, ${describeGrid(data.loaded.series)}`;
  return `${await renderPanel(rows, style)}${style.paint.dim(await fitLines(note, style.width))}\n`;
}

/** What a device token sees (the balance), and what needs an API key. */
export async function renderDeviceStatus(balance: Balance, hint: string, ctx: Context): Promise<string> {
  const [{ renderPanel }, { formatAmount }, { styleFor }, { fitLines }] = await Promise.all([import('./table.js'), import('./money.js'), import('./style.js'), import('./wrap.js')]);
  const style = await styleFor(ctx);
  const amount = (value: Decimal) => formatAmount(value, 'account', { currency: balance.currency, exact: ctx.options.exact });
  const rows: [string, string][] = [
    ['Balance', `${amount(balance.balance)} · lifetime spend ${amount(balance.lifetimeSpend)} · ${balance.hasActivePlan ? 'plan active' : 'no active plan (billing from balance)'}`],
    ['Today', 'signed in with a device token: no key-level limit'],
  ];
  return `${await renderPanel(rows, style)}${style.paint.dim(await fitLines(hint, style.width))}\n`;
}

/** The status's row in the fleet's table (a device token reads the balance only: the rest of its row is —). */
export const statusFleetRow: FleetRow<Parsed<StatusDocument>> = {
  columns: [
    { header: 'balance', value: (r) => r.balance.balance, amount: true },
    { header: 'this month', value: (r) => r.forecast?.month_to_date, amount: true, drop: 2 },
    { header: 'avg a day', value: (r) => r.forecast?.average_daily_spend, amount: true, drop: 3 },
    { header: 'runway days', value: (r) => (r.forecast ? runwayCell(r.forecast.runway_days, r.forecast.runway_basis) : undefined), drop: 1, align: 'right' },
  ],
  currency: (r) => r.balance.currency,
  balance: (r) => r.balance,
};
