// The forecast: the balance, the average daily spend of the last complete days, the runway (of
// the balance, or of the key's own quota when that runs out first), the month so far and
// projected, and where today is heading against the key's daily limit. Two requests issued
// together (three with the key's quota): the balance and one usage request of day buckets.
import type { Context } from '../context.js';
import { ServiceError, TallyError, UsageError } from '../errors.js';
import { type Balance, balanceDocument } from '../api/balance.js';
import { LosslessNumber, isJsonObject } from '../domain/json.js';
import { type DailySpend, type Forecast, forecast } from '../domain/forecast.js';
import { derivedText as ledgerText } from '../domain/money.js';
import { type Backtest, PATTERN_DAYS, RANGE_COVERAGE, backtest } from '../domain/forecast-range.js';
import { Decimal } from '../domain/money.js';
import { bucketStart } from '../domain/window.js';
import { dateText, fixedZone, isoInZone, wallClock } from '../domain/zone.js';
import { keyQuotaJson } from './key-quota.js';
import { type KeyAllowance, keyAllowanceOf } from './key-allowance.js';
import { balanceOf } from './balance.js';
import { type UsageSeries, bucketMoney, loadUsageSeries } from './usage-series.js';
import { spendPerModel } from './usage-by-model.js';

export interface ForecastOptions {
  /** The complete days the pace is taken from (1 to 365; the command checks --days). */
  days?: number;
  utcOffset?: string;
  metric?: string;
  /** Whether the key's own quota is asked for (its runway may be the shorter one); budgets do without. */
  keyQuota?: boolean;
  /** For a gate: a remembered failure to read the quota is not served (the gateway is asked again). */
  forGate?: boolean;
}

export const DEFAULT_BASIS_DAYS = 7;

export interface LoadedForecast {
  balance: Balance;
  series: UsageSeries;
  forecast: Forecast;
  metric: string | undefined;
  /** What this key may spend: today against its daily limit, its own quota. */
  allowance: KeyAllowance;
}

/** The balance and enough day buckets for the basis and the month so far, then the figures. */
export async function loadForecast(ctx: Context, options: ForecastOptions): Promise<LoadedForecast> {
  const days = options.days ?? DEFAULT_BASIS_DAYS;
  // Today, the basis days before it, and the whole month so far: one request (split past 92 days).
  const span = Math.max(days + 1, 31);
  const [balance, series, allowance] = await Promise.all([
    balanceOf(ctx),
    loadUsageSeries(ctx, { bucket: 'day', since: `${span}d`, utcOffset: options.utcOffset }),
    keyAllowanceOf(ctx, { quota: options.keyQuota, forGate: options.forGate }),
  ]);
  if (allowance.quota.state === 'unknown') ctx.debug(allowance.quota.reason);
  const metric = spendMetric(series, options.metric);
  const spend = dailySpendOf(series, metric);
  const comparable = allowance.comparableQuota;
  const now = Math.floor(ctx.now() / 1000);
  const keyPace = comparable ? await keyOwnPace(ctx, bucketStart(now, 'day', series.dayGrid.offset), days) : undefined;
  const result = forecast({
    balance: balance.balance,
    days: spend,
    basisDays: days,
    now,
    dayOffset: series.dayGrid.offset,
    today: allowance.daily && { used: allowance.daily.used, limit: allowance.daily.limit },
    keyRemaining: comparable?.remaining,
    keyPace,
  });
  return { balance, series, forecast: result, metric, allowance };
}

/**
 * The key's own average daily spend over the basis days, from its records of usage by model
 * where the gateway says they are the key's (and all came back); undefined where tally cannot
 * know it (the account's pace is used then, and said).
 */
async function keyOwnPace(ctx: Context, todayStart: number, days: number): Promise<Decimal | undefined> {
  try {
    const over = await spendPerModel(ctx, { start: todayStart - days * 86_400, end: todayStart });
    // A model whose spend cannot be read leaves the key's pace unknown (never the others' sum).
    if (over.scope !== 'key' || over.incomplete || over.unknown.length) return undefined;
    return [...over.spend.values()].reduce((a, v) => a.plus(v), new Decimal(0)).div(days);
  } catch (error) {
    if (error instanceof TallyError && error.kind === 'interrupted') throw error;
    ctx.debug(`the key's own spend could not be read (${(error as Error).message}); its quota is set against the account's pace`);
    return undefined;
  }
}

/**
 * The money field of the usage buckets: --metric (which must exist), else the one discovered;
 * undefined only when there is no usage at all. Every reader of spend (forecast, budgets, status,
 * check) reads it here: usage whose buckets hold no decimal amount is refused, never read as zero.
 */
export function spendMetric(series: UsageSeries, named: string | undefined): string | undefined {
  const names = series.shape?.metrics.map((m) => m.name) ?? [];
  if (named !== undefined) {
    const known = series.shape?.metrics.find((m) => m.name === named);
    if (series.shape && !known) throw new UsageError(`--metric "${named}" is not a field of the usage buckets (they have: ${names.join(', ') || 'none'})`);
    if (known && known.type !== 'decimal-string') throw new UsageError(`--metric "${named}" is a count, not an amount (the amounts are: ${series.shape!.metrics.filter((m) => m.type === 'decimal-string').map((m) => m.name).join(', ') || 'none'})`);
    return named;
  }
  const shape = series.shape;
  if (shape && shape.moneyMetric === undefined) {
    const fields = shape.metrics.map((m) => `${m.name} (${m.type === 'decimal-string' ? 'an amount' : 'a number'})`).join(', ') || 'none';
    throw new ServiceError(`the usage buckets hold no decimal amount, so tally cannot tell which field is money (fields: ${fields}); amounts sent as JSON numbers are not read as money, never as zero`);
  }
  return shape?.moneyMetric;
}

/** The forecast document (amounts as decimal strings; dates on the day grid). */
export function forecastJson(loaded: LoadedForecast) {
  const { forecast: f, balance } = loaded;
  const zone = fixedZone(loaded.series.dayGrid.offset);
  const today = f.today;
  return {
    currency: balance.currency,
    balance: balanceDocument(balance).balance,
    basis: {
      days: f.basis.days,
      start: f.basis.start,
      end: f.basis.end,
      start_iso: isoInZone(f.basis.start, zone),
      end_iso: isoInZone(f.basis.end, zone),
      spend: f.basis.spend.toFixed(),
    },
    average_daily_spend: ledgerText(f.averageDailySpend),
    // A whole number in plain digits, however large (never 1e+98).
    runway_days: f.runwayDays === null ? null : new LosslessNumber(f.runwayDays.toFixed()),
    runs_out_on: f.runsOutOn === null ? null : dateText(wallClock(f.runsOutOn, zone)),
    runway_basis: f.runwayBasis,
    ...(f.keyPace ? { key_pace: { basis: f.keyPace.pace, daily: ledgerText(f.keyPace.daily) } } : {}),
    key_quota: keyQuotaJson(loaded.allowance.quota),
    month_to_date: f.monthToDate.toFixed(),
    projected_month_end: ledgerText(f.projectedMonthEnd),
    projected_month_end_range: f.monthRange && {
      low: ledgerText(f.monthRange.low),
      high: ledgerText(f.monthRange.high),
      middle: ledgerText(f.monthRange.expected),
      coverage: f.monthRange.coverage,
      method: f.monthRange.method,
      days: f.monthRange.days,
      held: f.monthRange.held,
    },
    today: today && {
      // What the service sent, as it sent it.
      used: sentAmount(balance, 'daily_cost_used'),
      limit: today.limit === null ? null : sentAmount(balance, 'daily_cost_limit'),
      projected: today.projected === null ? null : ledgerText(today.projected),
      limit_reached_at: today.limitReachedAt === null ? null : isoInZone(today.limitReachedAt, zone),
    },
  };
}

/** A field of the key record exactly as the service sent it (a decimal string), or null. */
function sentAmount(balance: Balance, field: string): string | null {
  const key = balance.raw.api_key;
  const value = isJsonObject(key) ? key[field] : undefined;
  return typeof value === 'string' ? value : null;
}

/** The spend of each day of a day series, from its money field (days without a readable amount are left out: they spent nothing). */
function dailySpendOf(series: UsageSeries, metric: string | undefined): DailySpend[] {
  const spend: DailySpend[] = [];
  if (metric === undefined) return spend;
  bucketMoney(series.buckets, metric).forEach((amount, i) => amount !== undefined && spend.push({ day: series.slots[i]!, spend: new Decimal(amount) }));
  return spend;
}

/** `forecast --backtest`: the day series over the weeks and the four weeks before them, and how the method did. */
export interface LoadedBacktest {
  currency: string;
  series: UsageSeries;
  metric: string | undefined;
  basisDays: number;
  result: Backtest;
}

export async function loadBacktest(ctx: Context, options: ForecastOptions & { weeks: number }): Promise<LoadedBacktest> {
  const days = options.days ?? DEFAULT_BASIS_DAYS;
  const history = Math.max(days, PATTERN_DAYS);
  const [balance, series] = await Promise.all([balanceOf(ctx), loadUsageSeries(ctx, { bucket: 'day', since: `${options.weeks * 7 + history + 1}d`, utcOffset: options.utcOffset })]);
  const metric = spendMetric(series, options.metric);
  const spend = dailySpendOf(series, metric);
  const todayStart = bucketStart(Math.floor(ctx.now() / 1000), 'day', series.dayGrid.offset);
  return { currency: balance.currency, series, metric, basisDays: days, result: backtest(spend, todayStart, options.weeks, days, history, series.dayGrid.offset) };
}

/** The backtest document: each week's projection, range and outcome; the mean absolute percentage error and how often the outcome fell inside. */
export function backtestJson(loaded: LoadedBacktest) {
  const zone = fixedZone(loaded.series.dayGrid.offset);
  const { result } = loaded;
  const percent = (value: Decimal | undefined) => (value === undefined ? null : value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2));
  return {
    currency: loaded.currency,
    basis_days: loaded.basisDays,
    coverage: RANGE_COVERAGE,
    weeks: result.weeks.map((w) => ({
      start: w.start,
      end: w.end,
      start_iso: isoInZone(w.start, zone),
      end_iso: isoInZone(w.end, zone),
      projected: ledgerText(w.projected),
      low: w.range ? ledgerText(w.range.low) : null,
      high: w.range ? ledgerText(w.range.high) : null,
      method: w.range?.method ?? null,
      actual: w.actual.toFixed(),
      error_percent: percent(w.errorPercent),
      inside: w.inside ?? null,
    })),
    mape_percent: percent(result.mape),
    inside: result.inside,
    ranged: result.ranged,
  };
}
