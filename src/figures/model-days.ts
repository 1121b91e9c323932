// What each model did day by day: what it spent and whether it counted tokens, from the per-day
// answers of usage by model. Days that are over are remembered across runs (settings/
// model-days-cache.ts), so a run asks only for the days it has not seen settle: the anomalies'
// dating of a model that started or stopped costing money, and a past spike's models, go out
// with the run's first round instead of after it, and each past day is asked for once.
import type { Context } from '../context.js';
import { isDecimalString } from '../domain/decimal-text.js';
import { Decimal, decimalText } from '../domain/money.js';
import { usagePerModel } from '../domain/repricing.js';
import { type UsageWindow, periodsOf } from '../domain/window.js';
import type { RememberedDay } from '../settings/model-days-cache.js';
import { type ModelSpendOver, spendPerModel, spendPerModelKey } from './usage-by-model.js';
import { startAhead } from './usage-series.js';

/** One day (whole, or cut by its window's end): what each model that spent money spent, and the models that counted tokens. */
export interface ModelDay {
  start: number;
  end: number;
  spent: ReadonlyMap<string, Decimal>;
  tokens: ReadonlySet<string>;
}

/** The most days a run asks ahead, beside its first requests, when it remembers the others: today, and the days settled since the last run. */
export const AHEAD_DAYS = 7;

/** The tokens (in and out) each model's records count, where the records name them (records with a readable amount). */
function tokensPerModel(over: ModelSpendOver): Map<string, Decimal> {
  const fields = over.fields;
  if (!fields) return new Map();
  return new Map([...usagePerModel(over.records.filter((r) => isDecimalString(r[fields.spend])), fields)].map(([model, u]) => [model, (u.input ?? new Decimal(0)).plus(u.output ?? 0)]));
}

/** The tokens (in and out) a model's records count; zero where they name none. */
export function tokensOf(over: ModelSpendOver, model: string): Decimal {
  return tokensPerModel(over).get(model) ?? new Decimal(0);
}

/** A day's answer as a day of models; undefined when the answer is not whole (more pages than followed). */
export function modelDayOf(over: ModelSpendOver): ModelDay | undefined {
  if (over.incomplete) return undefined;
  const spent = new Map([...over.spend].filter(([, v]) => v.isPositive() && !v.isZero()));
  const tokens = new Set([...tokensPerModel(over)].filter(([, count]) => count.gt(0)).map(([model]) => model));
  return { start: over.window.start, end: over.window.end, spent, tokens };
}

/** The days remembered for this run's gateway and credential, read once a run (none in demo mode or without a credential). */
function remembered(ctx: Context): Promise<Map<number, RememberedDay>> {
  return ctx.figure('model-days-remembered', async () => {
    const where = await cacheOf(ctx);
    if (!where) return new Map();
    const { readModelDays } = await import('../settings/model-days-cache.js');
    return readModelDays(where.stateDir, where.baseUrl, where.secret, Math.floor(ctx.now() / 1000));
  });
}

async function cacheOf(ctx: Context): Promise<{ stateDir: string; baseUrl: URL; secret: string } | undefined> {
  if (ctx.options.demo) return undefined;
  const client = await ctx.client();
  const secret = client.credential?.secret;
  const stateDir = secret === undefined ? undefined : await ctx.stateDir().catch(() => undefined);
  return secret === undefined || stateDir === undefined ? undefined : { stateDir, baseUrl: client.baseUrl, secret };
}

interface Day {
  start: number;
  end: number;
  /** Cut by its window (not a whole day): never remembered. */
  partial: boolean;
}

/** The days of `windows` on the grid, each once. */
export function daysOf(windows: UsageWindow[], dayOffset: number): Day[] {
  const seen = new Set<string>();
  return windows.flatMap((w) => periodsOf(w, 'day', dayOffset)).filter((d) => !seen.has(`${d.start}-${d.end}`) && seen.add(`${d.start}-${d.end}`));
}

/** What is remembered of a day, where the whole day is. */
const keptFor = (known: Map<number, RememberedDay>, d: Day): RememberedDay | undefined => {
  const kept = d.partial ? undefined : known.get(d.start);
  return kept?.end === d.end ? kept : undefined;
};

const asModelDay = (kept: RememberedDay): ModelDay => ({ start: kept.start, end: kept.end, spent: new Map(kept.spent.map(([m, v]) => [m, new Decimal(v)])), tokens: new Set(kept.tokens) });

/**
 * Asks, beside a run's first requests, for the days of `windows` it does not remember, for each
 * window whose days it remembers but a few (AHEAD_DAYS), when they go out in one round with the
 * `others` requests of that round; a run that remembers nothing asks nothing ahead (its dating,
 * where there is any, asks then).
 */
export function askModelDaysAhead(ctx: Context, windows: UsageWindow[], dayOffset: number, others: number): void {
  startAhead(
    (async () => {
      const known = await remembered(ctx);
      if (known.size === 0) return;
      const unknown = (days: Day[]) => days.filter((d) => !keptFor(known, d));
      const missing = unknown(daysOf(windows.filter((w) => unknown(daysOf([w], dayOffset)).length <= AHEAD_DAYS), dayOffset));
      // Not waiting for an HTTP/2 server's SETTINGS: they come with the first answers, a round late.
      if (missing.length === 0 || missing.length + others > (await (await ctx.client()).together({ settings: false }))) return;
      for (const day of missing) startAhead(spendPerModel(ctx, { start: day.start, end: day.end }));
    })(),
  );
}

/**
 * The days of each of `windows` as days of models, when the run can have every one of them in
 * this round: remembered, asked already, or asked now (`room` at most). Undefined when it cannot;
 * the caller narrows in with longer windows then.
 */
export async function modelDaysIn(ctx: Context, windows: UsageWindow[], dayOffset: number, room: number): Promise<Map<string, ModelDay[]> | undefined> {
  const known = await remembered(ctx);
  const days = daysOf(windows, dayOffset);
  // A day asked already (ahead, or for a spike) is under way in this round: only the others are asked now.
  if (days.filter((d) => !keptFor(known, d) && !ctx.askedFigure(spendPerModelKey(d))).length > room) return undefined;
  const answers = await Promise.all(days.map(async (d) => {
    const kept = keptFor(known, d);
    return kept ? asModelDay(kept) : modelDayOf(await spendPerModel(ctx, { start: d.start, end: d.end }));
  }));
  if (answers.some((a) => a === undefined)) return undefined;
  return new Map(windows.map((w) => [`${w.start}-${w.end}`, (answers as ModelDay[]).filter((a) => a.start >= w.start && a.end <= w.end)]));
}

/** What each model spent on one day: remembered where the day is, else asked (undefined: the answer was not whole). */
export async function spendOnDay(ctx: Context, day: UsageWindow): Promise<ReadonlyMap<string, Decimal> | undefined> {
  const kept = keptFor(await remembered(ctx), { ...day, partial: false });
  return kept ? asModelDay(kept).spent : modelDayOf(await spendPerModel(ctx, day))?.spent;
}

/** Remembers the whole days of `windows` this run has answers for and did not remember (those settled: settings/model-days-cache.ts). */
export async function rememberModelDays(ctx: Context, windows: UsageWindow[], dayOffset: number): Promise<void> {
  const known = await remembered(ctx);
  const fresh: RememberedDay[] = [];
  for (const d of daysOf(windows, dayOffset)) {
    if (d.partial || known.has(d.start)) continue;
    const over = ctx.settledFigure<ModelSpendOver>(spendPerModelKey(d));
    const day = over && modelDayOf(over);
    if (day) fresh.push({ start: day.start, end: day.end, spent: [...day.spent].map(([m, v]) => [m, decimalText(v)]), tokens: [...day.tokens] });
  }
  if (fresh.length === 0) return;
  const where = await cacheOf(ctx);
  if (!where) return;
  const { rememberModelDays: remember } = await import('../settings/model-days-cache.js');
  remember(where.stateDir, where.baseUrl, where.secret, fresh, Math.floor(ctx.now() / 1000));
}
