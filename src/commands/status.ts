// tally status: one screen — balance and plan, today against the daily limit, the last 7 days
// as a sparkline, the week's top models, the runway. Three requests issued together: the
// balance, one usage request of day buckets (the week and the month so far), and the week's
// spend per model.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { fetchBalance } from '../api/balance.js';
import { isDecimalString } from '../domain/decimal-text.js';
import type { JsonObject } from '../domain/json.js';
import { Decimal } from '../domain/money.js';
import { resolveWindow } from '../domain/window.js';
import { fixedZone } from '../domain/zone.js';
import { keyQuotaRows } from '../output/key-quota.js';
import { DEFAULT_MAX_PAGES, fetchAllPages } from '../figures/records.js';
import type { Scope } from '../domain/records.js';
import type { Finding } from '../figures/anomalies.js';
import { type UsageSeries, totalsOf, usageJson } from '../figures/usage-series.js';
import { describeWindow } from '../output/window-text.js';
import { addWatchOption, watchOrRun } from '../cli/watch.js';
import { timeSettings } from '../figures/day-grid.js';
import { describeGrid } from '../output/usage.js';
import { type LoadedForecast, forecastJson, loadForecast } from '../figures/forecast.js';
import { forecastRows } from '../output/forecast.js';
import { type LoadedBudgets, budgetJson, loadBudgets, storedBudgets } from '../figures/budgets.js';
import { budgetLines } from '../output/budgets.js';

const TOP_MODELS = 5;
const WEEK = 7;

export function configure(command: Command): void {
  command.option('--utc-offset <+HH:MM>', "the gateway's day grid (default: inferred from usage)");
  addWatchOption(command);
}

interface StatusData {
  loaded: LoadedForecast;
  week: UsageSeries;
  topModels: JsonObject[];
  /** Spend per model (every record of a model added up), the largest first. */
  topSpend: { model: string; spend: Decimal }[];
  modelFields: { model: string; spend: string } | undefined;
  modelsScope: Scope | undefined;
  budgets: LoadedBudgets | undefined;
  /** Today's spend far above the days before it (the default anomaly rule on the forecast's days). */
  alert: Finding | undefined;
}

export async function run(raw: Record<string, unknown>, ctx: Context): Promise<void> {
  const options = raw as { utcOffset?: string };
  const settings = await ctx.settings();
  if (settings.credential?.kind === 'device-token') return deviceStatus(ctx, raw);
  await watchOrRun(ctx, raw, 'tally status', async () => {
    const data = await loadStatus(ctx, options);
    return {
      json: () => ({ balance: data.loaded.balance.raw, usage: usageJson(data.week), top_models: data.topModels, forecast: forecastJson(data.loaded), ...(data.budgets ? { budgets: budgetJson(data.budgets).budgets } : {}), alert: data.alert ? { kind: data.alert.kind, start: data.alert.start, amount: data.alert.amount.toFixed(), baseline: data.alert.baseline?.toFixed() ?? null, ratio: data.alert.ratio?.toDecimalPlaces(4, Decimal.ROUND_HALF_UP).toFixed() ?? null } : null }),
      human: () => renderStatus(data, ctx),
      note: data.week.cache === 'HIT' ? "usage from the gateway's cache" : undefined,
    };
  });
}

/** What a device token can see (the balance), and what needs an API key, instead of exit 3. */
async function deviceStatus(ctx: Context, raw: Record<string, unknown>): Promise<void> {
  const needsKey = ['usage', 'top_models', 'forecast'];
  const hint = 'usage, top models and the forecast need an API key (`tally login --with-token`, or TALLY_API_KEY): a device token sees the balance only';
  await watchOrRun(ctx, raw, 'tally status', async () => {
    const balance = await fetchBalance(await ctx.client());
    return {
      json: () => ({ balance: balance.raw, usage: null, top_models: null, forecast: null, needs_api_key: needsKey }),
      human: async () => {
        const [{ renderPanel }, { formatAmount }, { styleFor }, { fitLines }] = await Promise.all([import('../output/table.js'), import('../output/money.js'), import('../output/style.js'), import('../output/wrap.js')]);
        const style = await styleFor(ctx);
        const amount = (value: Decimal) => formatAmount(value, 'account', { currency: balance.currency, exact: ctx.options.exact });
        const rows: [string, string][] = [
          ['Balance', `${amount(balance.balance)} · lifetime spend ${amount(balance.lifetimeSpend)} · ${balance.hasActivePlan ? 'plan active' : 'no active plan (billing from balance)'}`],
          ['Today', 'signed in with a device token: no key-level limit'],
        ];
        return `${await renderPanel(rows, style)}${style.paint.dim(await fitLines(hint, style.width))}\n`;
      },
    };
  });
}

async function loadStatus(ctx: Context, options: { utcOffset?: string }): Promise<StatusData> {
  const client = await ctx.client();
  const time = await timeSettings(ctx, options);
  // The week per model on the grid known before asking (or UTC): asked together with the rest.
  const grid = time.known ?? { offset: 0, source: 'assumed' as const };
  const now = Math.floor(ctx.now() / 1000);
  const window = resolveWindow({ now, zone: time.zone, bucket: 'day', dayOffset: grid.offset });
  const balance = fetchBalance(client);
  const forecast = loadForecast(ctx, { utcOffset: options.utcOffset }, { balance });
  forecast.catch(() => undefined);
  // A line per stored budget: its hours asked together with the rest, its pace from the same forecast.
  const hasBudgets = (await storedBudgets(ctx)).length > 0;
  const [loaded, models, budgets] = await Promise.all([
    forecast,
    // Spend per model is one figure, read whole (every page), each model's records added up.
    fetchAllPages(ctx, client, '/v1/open/usage/models', { start: String(window.start), end: String(window.end) }, { all: true, maxPages: DEFAULT_MAX_PAGES }),
    hasBudgets ? loadBudgets(ctx, [], forecast) : undefined,
  ]);
  const week = await lastDays(loaded.series, WEEK);
  const { modelAndSpend, spendByModel } = await import('../figures/usage-by-model.js');
  const modelFields = modelAndSpend(models.records);
  const ranked = spendByModel(models.records, modelFields)?.ranked.slice(0, TOP_MODELS) ?? [];
  // The records of the top models, as sent (--json keeps them), the largest model first.
  const rank = new Map(ranked.map((m, i) => [m.model, i]));
  const topModels = modelFields ? models.records.filter((r) => rank.has(String(r[modelFields.model] ?? ''))).sort((a, b) => rank.get(String(a[modelFields.model] ?? ''))! - rank.get(String(b[modelFields.model] ?? ''))!) : [];
  const topSpend = ranked;
  const { spikeToday } = await import('../figures/anomalies.js');
  return { loaded, week, topModels, topSpend, modelFields, modelsScope: models.scope, budgets, alert: spikeToday(loaded.series, loaded.metric, Math.floor(ctx.now() / 1000)) };
}

/** Whose figures a row shows, when the gateway says: two scopes are never set side by side without a word. */
function whose(scope: Scope | undefined): string {
  return scope === 'account' ? ' (whole account)' : scope === 'key' ? ' (this key)' : '';
}

/** The usage document of the last `days` days (today included) from a longer day series, totals added exactly. */
async function lastDays(series: UsageSeries, days: number): Promise<UsageSeries> {
  const from = Math.max(0, series.buckets.length - days);
  const buckets = series.buckets.slice(from);
  const slots = series.slots.slice(from);
  const totals = await totalsOf(buckets, series.shape);
  return { ...series, window: { start: slots[0] ?? series.window.start, end: series.window.end }, buckets, slots, totals, filled: 0, requests: 1 };
}

/** ▁▂▃▄▅▆▇█ for each value, scaled to the largest (a shape to glance at; the total beside it is exact). */
function sparkline(values: number[]): string {
  const blocks = '▁▂▃▄▅▆▇█';
  const largest = Math.max(...values, 0);
  return values.map((v) => (largest === 0 ? blocks[0] : blocks[Math.min(7, Math.floor((v / largest) * 7.999))])).join('');
}

async function renderStatus(data: StatusData, ctx: Context): Promise<string> {
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
  const key = balance.apiKey;
  if (key === null) rows.push(['Today', 'signed in with a device token: no key-level limit']);
  else if (key.dailyUsed !== undefined && key.dailyLimit !== undefined && !key.dailyLimit.isZero()) {
    const share = key.dailyUsed.div(key.dailyLimit).toNumber();
    rows.push(['Today', drawn(`${amount(key.dailyUsed)} of ${amount(key.dailyLimit)}  ${bar(share, 20, style)}  ${formatPercent(key.dailyUsed, key.dailyLimit)}`)]);
  } else if (key.dailyUsed !== undefined) rows.push(['Today', `${amount(key.dailyUsed)} (the key has no daily limit)`]);
  rows.push(...keyQuotaRows(data.loaded.keyQuota, ctx.options.exact));
  const money = data.loaded.metric;
  const week = data.week;
  if (money) {
    const values = week.buckets.map((b) => (isDecimalString(b[money]) ? Number(b[money]) : 0));
    const total = week.totals[money];
    const calls = week.shape?.metrics.find((m) => m.type === 'number' && /call|request|count/i.test(m.name));
    const callText = calls && week.totals[calls.name] !== undefined ? `, ${formatCount(String(week.totals[calls.name]))} ${calls.name}` : '';
    rows.push([`Last ${WEEK} days`, `${sparkline(values)}  ${isDecimalString(total) ? amount(total) : ''}${callText}${whose(week.scope)}`]);
  } else rows.push([`Last ${WEEK} days`, 'no usage to show']);
  if (data.modelFields && data.topModels.length > 0) {
    rows.push(['Top models', `${data.topSpend.map((m) => `${m.model} ${amount(m.spend.toFixed())}`).join(' · ')}${whose(data.modelsScope)}`]);
  }
  if (data.alert) {
    const { findingMessage } = await import('../output/anomalies.js');
    const { DAY_RULE: rule } = await import('../figures/anomalies.js');
    rows.push(['Alert', drawn(style.paint.yellow(`today: ${findingMessage(data.alert, { rule, labelZone: fixedZone(data.loaded.series.dayGrid.offset) }, ctx.options.exact)} (tally anomalies)`))]);
  }
  const forecast = (await forecastRows(data.loaded, ctx)).filter(([label]) => label !== 'Today');
  rows.push(...forecast);
  if (data.budgets) for (const [name, line] of await budgetLines(data.budgets, ctx)) rows.push([`Budget ${name}`, line]);
  const note = `${describeWindow(week.window, fixedZone(data.loaded.series.dayGrid.offset))}, ${describeGrid(data.loaded.series)}`;
  return `${await renderPanel(rows, style)}${style.paint.dim(await fitLines(note, style.width))}\n`;
}
