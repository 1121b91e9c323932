// What `tally status` shows, as one figure: the forecast (balance, the key's limit and quota, the
// day series), the last 7 days cut from it, the week's top models, the budgets, and today's
// spike. The requests go out together: the balance, one usage request of day buckets (the week
// and the month so far), the key's quota and the week's spend per model.
import type { Context } from '../context.js';
import { balanceDocument } from '../api/balance.js';
import type { JsonObject } from '../domain/json.js';
import { Decimal } from '../domain/money.js';
import { resolveWindow } from '../domain/window.js';
import type { Scope } from '../domain/records.js';
import type { AnomalyRule, Finding } from './anomalies.js';
import { DEFAULT_MAX_PAGES, fetchAllPages } from './records.js';
import { type UsageSeries, totalsOf, usageJson } from './usage-series.js';
import { timeSettings } from './day-grid.js';
import { type LoadedForecast, forecastJson, loadForecast } from './forecast.js';
import { type LoadedBudgets, budgetJson, loadBudgets, storedBudgets } from './budgets.js';

export const TOP_MODELS = 5;
export const WEEK = 7;

export interface StatusData {
  loaded: LoadedForecast;
  week: UsageSeries;
  /** How many days `week` is: the last days, today with them. */
  weekDays: number;
  topModels: JsonObject[];
  /** Spend per model (every record of a model added up), the largest first. */
  topSpend: { model: string; spend: Decimal }[];
  modelFields: { model: string; spend: string } | undefined;
  modelsScope: Scope | undefined;
  budgets: LoadedBudgets | undefined;
  /** Today's spend far above the days before it (the default anomaly rule on the forecast's days). */
  alert: Finding | undefined;
  /** The rule that found it (its words say how far above). */
  alertRule: AnomalyRule;
  /** A `tally proxy` running for this profile and key: its live figures. */
  proxy?: import('../settings/proxy-state.js').ProxyFigures;
}

export async function loadStatus(ctx: Context, options: { utcOffset?: string }): Promise<StatusData> {
  const client = await ctx.client();
  const time = await timeSettings(ctx, options);
  // The week per model on the grid known before asking (or UTC): asked together with the rest.
  const guessed = time.known?.offset ?? 0;
  const now = Math.floor(ctx.now() / 1000);
  // Spend per model is one figure, read whole (every page), each model's records added up.
  const weekPerModel = (dayOffset: number) => {
    const week = resolveWindow({ now, zone: time.zone, bucket: 'day', dayOffset });
    return fetchAllPages(ctx, client, '/v1/open/usage/models', { start: String(week.start), end: String(week.end) }, { all: true, maxPages: DEFAULT_MAX_PAGES });
  };
  const forecast = loadForecast(ctx, { utcOffset: options.utcOffset });
  forecast.catch(() => undefined);
  // A line per stored budget: its hours asked together with the rest, its pace from the same forecast.
  const hasBudgets = (await storedBudgets(ctx)).length > 0;
  const [loaded, guessedWeek, budgets] = await Promise.all([
    forecast,
    weekPerModel(guessed),
    hasBudgets ? loadBudgets(ctx, [], forecast) : undefined,
  ]);
  // The grid was guessed (a first run) and the day series proved it another: the week per model asked again on the gateway's days.
  const learned = loaded.series.dayGrid.offset;
  const models = learned === guessed ? guessedWeek : await weekPerModel(learned);
  const week = await lastDays(loaded.series, WEEK);
  const { modelAndSpend, modelTotals, spendByModel } = await import('../figures/usage-by-model.js');
  const modelFields = modelAndSpend(models.records);
  const topSpend = spendByModel(models.records, modelFields)?.ranked.slice(0, TOP_MODELS) ?? [];
  // One entry per top model, its records added up, with the records as sent (--json keeps them).
  const topModels = (modelTotals(models.records, modelFields) ?? []).slice(0, topSpend.length).map((m) => ({ ...m.totals, records: m.records }));
  const { DAY_RULE, spikeToday } = await import('../figures/anomalies.js');
  // A proxy running for this profile and key says its figures in a small file of the state folder.
  const settings = await ctx.settings();
  const { runningProxy } = await import('../settings/proxy-state.js');
  const proxy = settings.credential ? runningProxy(await ctx.stateDir(), { profile: settings.profile, baseUrl: client.baseUrl, secret: settings.credential.secret }) : undefined;
  return { loaded, week, weekDays: WEEK, topModels, topSpend, modelFields, modelsScope: models.scope, budgets, alert: spikeToday(loaded.series, loaded.metric, Math.floor(ctx.now() / 1000)), alertRule: DAY_RULE, ...(proxy ? { proxy } : {}) };
}

/** The status document (--json, and each profile's row of a fleet). */
export function statusJson(data: StatusData) {
  const alert = data.alert;
  return {
    balance: balanceDocument(data.loaded.balance),
    usage: usageJson(data.week),
    top_models: data.topModels,
    forecast: forecastJson(data.loaded),
    ...(data.budgets ? { budgets: budgetJson(data.budgets).budgets } : {}),
    alert: alert ? { kind: alert.kind, start: alert.start, amount: alert.amount.toFixed(), baseline: alert.baseline?.toFixed() ?? null, ratio: alert.ratio?.toDecimalPlaces(4, Decimal.ROUND_HALF_UP).toFixed() ?? null } : null,
    ...(data.proxy ? { proxy: { url: data.proxy.url, started_at: data.proxy.started_at, updated_at: data.proxy.updated_at, spent: data.proxy.spent, estimated: data.proxy.estimated, booked: data.proxy.booked, booked_calls: data.proxy.booked_calls, awaiting: data.proxy.awaiting, in_flight: data.proxy.in_flight, calls: data.proxy.calls, refused: data.proxy.refused, unpriced: data.proxy.unpriced, limits: data.proxy.limits } } : {}),
  };
}

/** What `status` is for a device token, which reads the balance only: the rest is null, and what needs an API key named. */
export function deviceStatusJson(balance: import('../api/balance.js').Balance) {
  return { balance: balanceDocument(balance), usage: null, top_models: null, forecast: null, needs_api_key: ['usage', 'top_models', 'forecast'] };
}

/** The status document: an API key's, or a device token's (balance only). */
export type StatusDocument = ReturnType<typeof statusJson> | ReturnType<typeof deviceStatusJson>;

/** The usage document of the last `days` days (today included) from a longer day series, totals added exactly. */
export async function lastDays(series: UsageSeries, days: number): Promise<UsageSeries> {
  const from = Math.max(0, series.buckets.length - days);
  const buckets = series.buckets.slice(from);
  const slots = series.slots.slice(from);
  const totals = await totalsOf(buckets, series.shape);
  return { ...series, window: { start: slots[0] ?? series.window.start, end: series.window.end }, buckets, slots, totals, filled: 0, requests: 1 };
}
