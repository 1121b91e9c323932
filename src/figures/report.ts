// The digest of a period (`tally report`): balance and runway now, spend against the period before
// (in total and per model), the day-by-day series, the budgets, the key's quota and the period's
// anomalies, asked for together. Every figure is one the other commands show the same way.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { type ComparisonRow, compareByModel, comparedWindow, comparisonRow, totalRow } from '../domain/comparison.js';
import { isDecimalString } from '../domain/decimal-text.js';
import { Decimal } from '../domain/money.js';
import type { Scope } from '../domain/records.js';
import { type UsageWindow, resolveWindow } from '../domain/window.js';
import { type Anomalies, loadAnomalies } from './anomalies.js';
import { type LoadedBudgets, loadBudgets, storedBudgets } from './budgets.js';
import { seriesSpend } from './comparison.js';
import { type DayGrid, timeSettings } from './day-grid.js';
import { type LoadedForecast, loadForecast, spendMetric } from './forecast.js';
import { modelSpendOver } from './usage-by-model.js';
import { knownDayGrid, loadOnGrid } from './usage-series.js';

export interface ReportRequest {
  /** week (default) or month: the period `--last` takes. */
  period?: string;
  month?: string;
  since?: string;
  until?: string;
  utcOffset?: string;
}

export interface DailySpend {
  start: number;
  amount: Decimal;
}

export interface Report {
  kind: 'week' | 'month' | 'custom';
  window: UsageWindow;
  previous: UsageWindow;
  grid: DayGrid;
  forecast: LoadedForecast;
  /** The series' totals (the account's, where the gateway says so). */
  spend: ComparisonRow;
  spendScope: Scope | undefined;
  /** The key's spend per model, the largest change first. */
  models: ComparisonRow[];
  modelsTotal: ComparisonRow;
  modelsScope: Scope | undefined;
  daily: DailySpend[];
  budgets: LoadedBudgets | undefined;
  anomalies: Anomalies;
  /** A list of records did not all come back. */
  incomplete: boolean;
}

export async function loadReport(ctx: Context, request: ReportRequest): Promise<Report> {
  const period = request.period ?? 'week';
  if (period !== 'week' && period !== 'month') throw new UsageError(`--period "${request.period}" is not week or month`);
  const custom = request.since !== undefined || request.until !== undefined;
  if (custom && request.month !== undefined) throw new UsageError('--month and --since/--until each name the period; give one of them');
  const time = await timeSettings(ctx, request);
  const grid = await knownDayGrid(ctx, time);
  const now = Math.floor(ctx.now() / 1000);
  const last = custom || request.month !== undefined ? undefined : period;
  const resolved = resolveWindow({ since: request.since, until: request.until, month: request.month, last, now, zone: time.zone, bucket: 'day', dayOffset: grid.offset });
  const window = { start: resolved.start, end: resolved.end };
  const previous = comparedWindow({ current: window, spec: 'previous', month: request.month, last, dayOffset: grid.offset, now, zone: time.zone });
  const onGrid = { zone: time.zone, known: grid };
  const series = (w: UsageWindow) => loadOnGrid(ctx, { bucket: 'day', since: String(w.start), until: String(w.end) }, onGrid);
  const forecast = loadForecast(ctx, { utcOffset: request.utcOffset });
  forecast.catch(() => undefined);
  const hasBudgets = (await storedBudgets(ctx)).length > 0;
  const [loaded, now_, before, modelsNow, modelsBefore, budgets, anomalies] = await Promise.all([
    forecast,
    series(window),
    series(previous),
    modelSpendOver(ctx, window),
    modelSpendOver(ctx, previous),
    hasBudgets ? loadBudgets(ctx, [], forecast) : undefined,
    loadAnomalies(ctx, { since: String(window.start), until: String(window.end) }),
  ]);
  const metric = spendMetric(now_.shape ? now_ : before, undefined);
  const models = compareByModel(modelsNow.spend, modelsBefore.spend);
  return {
    kind: custom || request.month === undefined ? (custom ? 'custom' : period) : 'month',
    window: now_.window,
    previous: before.window,
    grid: now_.dayGrid,
    forecast: loaded,
    spend: comparisonRow(seriesSpend(now_, metric), seriesSpend(before, metric)),
    spendScope: now_.scope,
    models,
    modelsTotal: totalRow(models),
    modelsScope: modelsNow.scope,
    daily: now_.buckets.map((b, i) => ({ start: now_.slots[i]!, amount: metric !== undefined && isDecimalString(b[metric]) ? new Decimal(b[metric] as string) : new Decimal(0) })),
    budgets,
    anomalies,
    incomplete: modelsNow.incomplete || modelsBefore.incomplete,
  };
}
