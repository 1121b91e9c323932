// The digest of a period (`tally report`): balance and runway now, spend against the period before
// (in total and per model), the day-by-day series, the budgets, the key's quota and the period's
// anomalies, asked for together. Every figure is one the other commands show the same way.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { type ComparisonRow, comparisonRow } from '../domain/comparison.js';
import { Decimal } from '../domain/money.js';
import type { Scope } from '../domain/records.js';
import { type UsageWindow, ended } from '../domain/window.js';
import { type Anomalies, loadAnomalies } from './anomalies.js';
import { type LoadedBudgets, loadBudgets, storedBudgets } from './budgets.js';
import { compareModels, compareTotals, comparedWindows } from './comparison.js';
import type { DayGrid } from './day-grid.js';
import { type LoadedForecast, loadForecast } from './forecast.js';
import { keyQuotaOf } from './key-quota.js';
import { balanceOf } from './balance.js';
import { spendPerModel } from './usage-by-model.js';
import { holdDays } from './day-pages.js';
import { bucketAmounts, recentDays, startAhead } from './usage-series.js';

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
  /** Whether the day had ended when the report was made (a running day's spend is so far). */
  complete: boolean;
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
  /** The token classes of the period's spend per model and what the cache saved (undefined: no tokens counted). */
  tokenClasses: import('./token-classes.js').TokenClasses | undefined;
  models: ComparisonRow[];
  modelsTotal: ComparisonRow;
  modelsScope: Scope | undefined;
  /**
   * Where the headline is the account's and the models are the key's (and both are whole): the
   * other keys' spend, so the two reconcile on the page (key + other keys = the headline).
   */
  otherKeys: ComparisonRow | undefined;
  daily: DailySpend[];
  budgets: LoadedBudgets | undefined;
  anomalies: Anomalies;
  /** A list of records did not all come back. */
  incomplete: boolean;
  /** Whether the period had ended when the report was made. */
  complete: boolean;
}

export async function loadReport(ctx: Context, request: ReportRequest): Promise<Report> {
  const period = request.period ?? 'week';
  if (period !== 'week' && period !== 'month') throw new UsageError(`--period "${request.period}" is not week or month`);
  const custom = request.since !== undefined || request.until !== undefined;
  if (custom && request.month !== undefined) throw new UsageError('--month and --since/--until each name the period; give one of them');
  const last = custom || request.month !== undefined ? undefined : period;
  // The balance and the key's quota do not depend on the day grid: they go out with the first
  // request for days (which learns the grid on a first run), not a round after it.
  const client = await ctx.client();
  startAhead(balanceOf(ctx));
  startAhead(keyQuotaOf(ctx));
  // Spend per model over the period and the one before: one request per window, whoever asks (the comparison, the anomalies, the token classes).
  const spendOver = (w: UsageWindow) => spendPerModel(ctx, w);
  // On a first run the two periods' models go out with the request that learns the grid (used when its days are UTC's, as guessed).
  const w = await comparedWindows(ctx, { since: request.since, until: request.until, month: request.month, last, utcOffset: request.utcOffset, compare: 'previous' }, (guess) => {
    startAhead(spendOver(guess.current));
    startAhead(spendOver(guess.previous));
  });
  // Every day series below (the period, the one before, the forecast's, the anomalies') is cut
  // from one request for the recent days, held before they ask (the grid's own, on a first run).
  holdDays(client, recentDays(client, Math.floor(ctx.now() / 1000)));
  const forecast = loadForecast(ctx, { utcOffset: request.utcOffset });
  forecast.catch(() => undefined);
  const hasBudgets = (await storedBudgets(ctx)).length > 0;
  // The token classes of the period's spend per model (the window compareModels asks) and what the cache saved, alongside.
  const classes = spendOver(w.current).then(async (over) => (await import('./token-classes.js')).loadTokenClasses(ctx, over.records));
  classes.catch(() => undefined);
  const [loaded, totals, models, budgets, anomalies] = await Promise.all([
    forecast,
    compareTotals(ctx, w),
    compareModels(ctx, w),
    // Budgets as they stood at the period's end (now, for a period still running).
    hasBudgets ? loadBudgets(ctx, [], forecast, { within: w.current }) : undefined,
    // Models judged against the report's own previous period: one rule (comparedWindow) for every section.
    loadAnomalies(ctx, { since: String(w.current.start), until: String(w.current.end), utcOffset: request.utcOffset, previous: w.previous }),
  ]);
  const tokenClasses = await classes;
  const [now_, before] = totals.series;
  const metric = totals.metric;
  const amounts = bucketAmounts(now_.buckets, metric);
  return {
    kind: custom || request.month === undefined ? (custom ? 'custom' : period) : 'month',
    window: now_.window,
    previous: before.window,
    grid: now_.dayGrid,
    forecast: loaded,
    spend: totals.row,
    spendScope: now_.scope,
    models: models.rows,
    modelsTotal: models.total,
    modelsScope: models.scope,
    otherKeys: now_.scope === 'account' && models.scope === 'key' && !models.incomplete ? comparisonRow(totals.row.current.minus(models.total.current), totals.row.previous.minus(models.total.previous), 'other keys') : undefined,
    daily: amounts.map((amount, i) => ({ start: now_.slots[i]!, amount, complete: ended({ end: now_.slots[i]! + 86_400 }, Math.floor(ctx.now() / 1000)) })),
    budgets,
    anomalies,
    incomplete: models.incomplete,
    tokenClasses,
    complete: ended(now_.window, Math.floor(ctx.now() / 1000)),
  };
}
