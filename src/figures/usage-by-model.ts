// Spend per model (GET /v1/open/usage/models): over one window, or with a bucket one request per
// period; and, where the records are the key's and complete, the key's share of the account's spend.
import type { Context } from '../context.js';
import { ServiceError, TallyError, UsageError } from '../errors.js';
import type { JsonObject } from '../domain/json.js';
import { isDecimalString } from '../domain/decimal-text.js';
import { type Scope, describeColumns, fieldNamesOf } from '../domain/records.js';
import { Decimal, decimalText } from '../domain/money.js';
import { mergeTotals } from '../domain/totals.js';
import { modelAmounts } from '../domain/repricing.js';
import { moneyFieldOf } from '../domain/money-field.js';
import { type BucketSize, type UsageWindow, parseBucket, periodsOf } from '../domain/window.js';
import { fixedZone } from '../domain/zone.js';
import { plural } from '../domain/words.js';
import { windowJson } from '../domain/window.js';
import { recordsJson } from './records.js';
import { DEFAULT_MAX_PAGES, type PagedRecords, fetchAllPages, parseParams } from './records.js';
import { windowOnGrid, loadUsageSeries } from './usage-series.js';
import { type DayGrid, type TimeSettings, type WindowOptions } from './day-grid.js';

export interface ModelUsageRequest extends WindowOptions {
  /** undefined: one window; otherwise one request per period (day, week or month). */
  bucket?: string;
  /** Query parameters passed through as they are. */
  param?: string[];
  /** Follow the continuation cursor through every page. */
  all?: boolean;
}

export interface ModelPeriod {
  start: number;
  end: number;
  /** Cut to a calendar window: it holds only the window's days. */
  partial: boolean;
  found: PagedRecords;
}

/** Spend per model over one window. */
export interface ModelUsageOverWindow {
  kind: 'window';
  window: UsageWindow;
  grid: DayGrid;
  time: TimeSettings;
  found: PagedRecords;
  share: KeyShare | undefined;
}

/** Spend per model, period by period. */
export interface ModelUsageByPeriod {
  kind: 'periods';
  bucket: BucketSize;
  window: UsageWindow;
  grid: DayGrid;
  periods: ModelPeriod[];
  /** Whose figures they are, when every period's answer says the same. */
  scope: Scope | undefined;
  share: KeyShare | undefined;
  /** Spend per model per period and in total, by spendByModel's rule (undefined: the records name no model and no amount). */
  spend: PeriodSpend | undefined;
}

/** What each model spent in each period and over all of them, the largest first, and the fields it was read from. */
export interface PeriodSpend {
  fields: { model: string; spend: string };
  byPeriod: Map<string, Decimal>[];
  /** Each period's models whose spend is unknown there (a record states no amount tally can read). */
  unknownByPeriod: Set<string>[];
  /** Over all periods, the models whose spend is known in each (one unknown period makes the total unknown: never a part as the whole). */
  totals: Map<string, Decimal>;
  unknownTotals: Set<string>;
  ranked: string[];
}

export type ModelUsage = ModelUsageOverWindow | ModelUsageByPeriod;

export const MODEL_USAGE_PATH = '/v1/open/usage/models';
/** At most one minute of the account rate limit (120 requests) per run. */
export const MAX_PERIODS = 120;

export async function loadModelUsage(ctx: Context, request: ModelUsageRequest): Promise<ModelUsage> {
  const query = parseParams(request.param);
  // A bad --bucket or window is refused before anything is asked.
  const bucket = request.bucket === undefined ? undefined : parseBucket(request.bucket, ['day', 'week', 'month']);
  const { window, grid, time } = await windowOnGrid(ctx, request, bucket ?? 'day');
  const client = await ctx.client();
  const paging = { all: request.all === true, maxPages: DEFAULT_MAX_PAGES };

  if (bucket === undefined) {
    const [found, account] = await Promise.all([fetchAllPages(ctx, client, MODEL_USAGE_PATH, { start: String(window.start), end: String(window.end), ...query }, paging), accountSpend(ctx, window)]);
    return { kind: 'window', window, grid, time, found, share: keyShare([found], account) };
  }

  // Periods cut to a calendar window where they reach past it (--month 2026-10 --bucket week).
  const wanted = periodsOf(window, bucket, grid.offset);
  if (wanted.length > MAX_PERIODS) {
    throw new UsageError(`${plural(wanted.length, bucket)} would take ${wanted.length} requests, more than the ${MAX_PERIODS} a minute the gateway allows; use a longer --bucket or a shorter window`);
  }
  // One request per period, independent of each other: they go out together (the pool sends at
  // most 4 at a time, and pacing keeps within the rate limit), in the periods' order when done.
  let done = 0;
  const [periods, account] = await Promise.all([
    Promise.all(
      wanted.map(async ({ start, end, partial }) => {
        const found = await fetchAllPages(ctx, client, MODEL_USAGE_PATH, { start: String(start), end: String(end), ...query }, paging);
        ctx.progress(`usage by model: ${++done} of ${wanted.length} ${bucket}s fetched…`);
        return { start, end, partial, found };
      }),
    ).finally(() => ctx.progress(undefined)),
    accountSpend(ctx, window),
  ]);
  // Whose figures they are: what every period's answer says (one that disagrees leaves it unknown).
  const scope = periods.every((p) => p.found.scope === periods[0]?.found.scope) ? periods[0]?.found.scope : undefined;
  const fields = modelAndSpend(periods.flatMap((p) => p.found.records));
  const spend = fields ? { fields, ...spendByPeriod(periods, fields) } : undefined;
  return { kind: 'periods', bucket, window, grid, periods, scope, share: keyShare(periods.map((p) => p.found), account), spend };
}

/** The `usage --by model` document: one entry per model for the whole window first (`models`), then the records as sent. */
export function modelUsageJson(usage: ModelUsage) {
  const gridZone = fixedZone(usage.grid.offset);
  if (usage.kind === 'window') {
    // The service's own `scope` stays as it sent it; tally says whose figures only where it said nothing.
    const { records, ...rest } = recordsJson(usage.found, usage.window, gridZone);
    const models = modelTotals(usage.found.records);
    return { ...shareJson('scope' in usage.found.extra ? 'as-sent' : usage.found.scope, usage.share), ...rest, ...(models ? { models: models.map((m) => m.totals) } : {}), records };
  }
  const models = modelTotals(usage.periods.flatMap((p) => p.found.records));
  return {
    bucket: usage.bucket,
    ...windowJson(usage.window, gridZone),
    ...shareJson(usage.scope, usage.share),
    ...(models ? { models: models.map((m) => m.totals) } : {}),
    periods: usage.periods.map((p) => ({ start: p.start, end: p.end, ...(p.partial ? { partial: true } : {}), records: p.found.records })),
  };
}

/**
 * One entry per model, the largest spend first: the model's records added up (mergeTotals: counts,
 * tokens and amounts exactly, under the gateway's own field names; a field the records disagree on
 * and that does not add up is null), with the records it was made of. A gateway may send a model
 * in several records (on several pages, or per key or channel). Undefined when the records name
 * no model or hold no amount.
 */
export function modelTotals(records: JsonObject[], fields = modelAndSpend(records)): { model: string; totals: JsonObject; records: JsonObject[] }[] | undefined {
  if (!fields) return undefined;
  const byModel = new Map<string, JsonObject[]>();
  for (const record of records) {
    const model = String(record[fields.model] ?? '');
    byModel.set(model, [...(byModel.get(model) ?? []), record]);
  }
  const ranked = spendByModel(records, fields)?.ranked.map((m) => m.model) ?? [];
  const order = [...ranked, ...[...byModel.keys()].filter((m) => !ranked.includes(m)).sort()];
  return order.map((model) => ({ model, totals: mergeTotals(byModel.get(model)!), records: byModel.get(model)! }));
}


/**
 * The account's spend over the same window (the usage series, when the gateway says it is the
 * account's), asked beside the per-model figures; undefined when it cannot be known (never a zero).
 */
export async function accountSpend(ctx: Context, window: { start: number; end: number }): Promise<string | undefined> {
  try {
    const series = await loadUsageSeries(ctx, { bucket: 'day', since: String(window.start), until: String(window.end) });
    const metric = series.shape?.moneyMetric;
    const total = metric === undefined ? undefined : series.totals[metric];
    return series.scope === 'account' && isDecimalString(total) ? total : undefined;
  } catch (error) {
    if (error instanceof TallyError && error.kind === 'interrupted') throw error;
    ctx.debug(`the account's spend over the window could not be read: ${(error as Error).message}`);
    return undefined;
  }
}

export interface KeyShare {
  key: string;
  account: string;
}

/** The key's spend (the records' money field, every page) beside the account's, when the records are the key's and complete. */
function keyShare(pages: PagedRecords[], account: string | undefined): KeyShare | undefined {
  if (account === undefined || pages.some((p) => p.scope !== 'key' || p.more !== undefined)) return undefined;
  const records = pages.flatMap((p) => p.records);
  const spent = spendByModel(records);
  // A model whose spend is unknown leaves the key's unknown: no share is said.
  if (!spent || spent.unknown.length) return undefined;
  return { key: decimalText(spent.ranked.reduce((sum, m) => sum.plus(m.spend), new Decimal(0))), account };
}

export function shareJson(scope: Scope | undefined | 'as-sent', share: KeyShare | undefined): Record<string, unknown> {
  return { ...(scope === 'as-sent' ? {} : { scope: scope ?? null }), ...(share ? { key_spend: share.key, account_spend: share.account } : {}) };
}

/** Which field names the model and which holds its spend, in records whose names are not published. */
export function modelAndSpend(records: JsonObject[]): { model: string; spend: string } | undefined {
  const columns = describeColumns(records);
  const text = columns.filter((c) => c.kind === 'text' && records.some((r) => typeof r[c.name] === 'string'));
  const model = text.find((c) => /^model(_name|_id)?$/i.test(c.name)) ?? text.find((c) => /model/i.test(c.name)) ?? text[0];
  const spend = moneyFieldOf(columns.filter((c) => c.kind === 'money').map((c) => c.name));
  return model && spend ? { model: model.name, spend } : undefined;
}

export interface ModelSpend {
  model: string;
  spend: Decimal;
}

/**
 * Spend per model, exactly, largest first (ties by name), by the one rule (domain/repricing.ts
 * modelAmounts): a model any of whose records states no amount tally can read is `unknown`, out
 * of the ranking (never its other records' sum, never zero). Undefined when the records name no
 * model or no amount.
 */
export function spendByModel(records: JsonObject[], fields = modelAndSpend(records)): { fields: { model: string; spend: string }; ranked: ModelSpend[]; unknown: string[] } | undefined {
  if (!fields) return undefined;
  const amounts = [...modelAmounts(records, fields)];
  const known = amounts.filter((entry): entry is [string, Decimal] => entry[1] !== undefined);
  const ranked = known.sort((a, b) => b[1].comparedTo(a[1]) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([model, value]) => ({ model, spend: value }));
  return { fields, ranked, unknown: amounts.filter(([, value]) => value === undefined).map(([model]) => model).sort() };
}

/**
 * Spend per model in each period and over all of them, by the one rule of spendByModel (an
 * unreadable amount left out, never read as zero), with the models ranked by their total,
 * largest first (ties by name): what a table of periods by models shows, added up here.
 */
export function spendByPeriod(periods: { found: PagedRecords }[], fields: PeriodSpend['fields']): Omit<PeriodSpend, 'fields'> {
  const spent = periods.map((p) => spendByModel(p.found.records, fields));
  const byPeriod = spent.map((s) => new Map(s?.ranked.map((m) => [m.model, m.spend]) ?? []));
  const unknownByPeriod = spent.map((s) => new Set(s?.unknown ?? []));
  const unknownTotals = new Set(unknownByPeriod.flatMap((set) => [...set]));
  const totals = new Map<string, Decimal>();
  for (const spend of byPeriod) for (const [model, value] of spend) if (!unknownTotals.has(model)) totals.set(model, (totals.get(model) ?? new Decimal(0)).plus(value));
  // The models whose total is known, largest first (ties by name), then those whose total is unknown, by name.
  const ranked = [...[...totals.entries()].sort((a, b) => b[1].comparedTo(a[1]) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([model]) => model), ...[...unknownTotals].sort()];
  return { byPeriod, unknownByPeriod, totals, unknownTotals, ranked };
}

/** Spend per model over one window, every page of it. */
export interface ModelSpendOver {
  window: UsageWindow;
  /** Each model's spend, where every record of it states one (the one rule: spendByModel). */
  spend: Map<string, Decimal>;
  /** Models some record of which states no amount tally can read: their spend is unknown (never zero, never in `spend`). */
  unknown: string[];
  /** The record fields of the model and its amount (undefined when there are no records). */
  fields: { model: string; spend: string } | undefined;
  scope: Scope | undefined;
  /** The records did not all come back (more pages than tally follows). */
  incomplete: boolean;
  records: JsonObject[];
}

/**
 * Spend per model over a window (every page, each model's records added up): one figure of the
 * run's store, asked of the gateway once whoever asks (a report's comparison, its anomalies and
 * its token classes; a budget's models; the ledger's days).
 */
export function spendPerModel(ctx: Context, window: UsageWindow, param?: string[]): Promise<ModelSpendOver> {
  return ctx.figure(spendPerModelKey(window, param), () => modelSpendOver(ctx, window, param));
}

/** The run store's name of spend per model over a window. */
export function spendPerModelKey(window: UsageWindow, param?: string[]): string {
  return `spend-per-model|${window.start}|${window.end}|${JSON.stringify(param ?? [])}`;
}

async function modelSpendOver(ctx: Context, window: UsageWindow, param?: string[]): Promise<ModelSpendOver> {
  const query = { start: String(window.start), end: String(window.end), ...parseParams(param) };
  const found = await fetchAllPages(ctx, await ctx.client(), MODEL_USAGE_PATH, query, { all: true, maxPages: DEFAULT_MAX_PAGES });
  const fields = spendFieldsOf(found.records);
  const spent = fields && spendByModel(found.records, fields);
  return { window, spend: new Map(spent?.ranked.map((m) => [m.model, m.spend]) ?? []), unknown: spent?.unknown ?? [], fields, scope: found.scope, incomplete: found.more !== undefined, records: found.records };
}

/**
 * The model and money fields of records that hold some, or undefined when there are none; records
 * that name no model or hold no decimal amount are refused (never read as spending nothing).
 */
export function spendFieldsOf(records: JsonObject[]): { model: string; spend: string } | undefined {
  if (records.length === 0) return undefined;
  const fields = modelAndSpend(records);
  if (!fields) {
    const names = fieldNamesOf(records);
    throw new ServiceError(`the records of usage by model name no model or hold no decimal amount (fields: ${names}); amounts sent as JSON numbers are not read as money, never as zero`);
  }
  return fields;
}
