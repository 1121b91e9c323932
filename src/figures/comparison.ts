// Two periods side by side (`usage --compare`, `check --max-growth`): the window asked for and the
// one it is compared with, on the same day grid, asked for together; their totals from the usage
// series (whose scope the gateway states), or per model from the records of usage by model.
import type { Context } from '../context.js';
import { type ComparisonRow, compareByModel, comparedWindow, comparisonRow, totalRow } from '../domain/comparison.js';
import type { Scope } from '../domain/records.js';
import { MAX_WINDOW_SECONDS, type UsageWindow, ended } from '../domain/window.js';
import { holdDays } from './day-pages.js';
import type { Zone } from '../domain/zone.js';
import { spendMetric } from './forecast.js';
import { type DayGrid, type TimeSettings, type WindowOptions } from './day-grid.js';
import { type UsageSeries, loadOnGrid, seriesSpend, windowOnGrid } from './usage-series.js';
import { type ModelSpendOver, spendPerModel } from './usage-by-model.js';

export interface ComparisonRequest extends WindowOptions {
  /** `previous`, `YYYY-MM` or `DATE..DATE`. */
  compare: string;
  /** Per model (the key's records) rather than the totals of the usage series. */
  byModel?: boolean;
  /** The usage field holding money (default: discovered). */
  metric?: string;
  /** With byModel: query parameters passed through. */
  param?: string[];
}

export interface Comparison {
  current: UsageWindow;
  previous: UsageWindow;
  grid: DayGrid;
  /** Per model, the largest change first; for totals, the one row of the totals. */
  rows: ComparisonRow[];
  totals: ComparisonRow;
  byModel: boolean;
  /** Whose spend it is, as the gateway states it (both periods alike), else undefined. */
  scope: Scope | undefined;
  /** The usage field (totals) or record field (by model) the amounts were read from. */
  field: string | undefined;
  /** A period whose records did not all come back (more pages than tally follows). */
  incomplete: boolean;
  /** Whether the current window had ended when the comparison was made (its figures are final). */
  currentComplete: boolean;
}

export async function loadComparison(ctx: Context, request: ComparisonRequest): Promise<Comparison> {
  const w = await comparedWindows(ctx, request);
  if (request.byModel) {
    const m = await compareModels(ctx, w, request.param);
    return { current: w.current, previous: w.previous, grid: w.grid, rows: m.rows, totals: m.total, byModel: true, scope: m.scope, field: m.fields?.spend, incomplete: m.incomplete, currentComplete: ended(w.current, Math.floor(ctx.now() / 1000)) };
  }
  const t = await compareTotals(ctx, w, request.metric);
  const [a, b] = t.series;
  return { current: a.window, previous: b.window, grid: a.dayGrid, rows: [t.row], totals: t.row, byModel: false, scope: t.scope, field: t.metric, incomplete: false, currentComplete: ended(a.window, Math.floor(ctx.now() / 1000)) };
}

/** The window asked for and the period it is compared with, on one day grid (learned first, without a request when it is known). */
export interface ComparedWindows {
  current: UsageWindow;
  previous: UsageWindow;
  grid: DayGrid;
  time: TimeSettings;
}

export async function comparedWindows(ctx: Context, request: WindowOptions & { compare: string }, ahead?: (guess: { current: UsageWindow; previous: UsageWindow }) => void): Promise<ComparedWindows> {
  // The period compared with is checked with the window, before the gateway is asked anything.
  const check = (provisional: UsageWindow, now: number, zone: Zone) => void comparedWindow({ current: provisional, spec: request.compare, month: request.month, last: request.last, dayOffset: 0, now, zone });
  // On a first run, both windows as they would be on UTC's days, while the grid is learned (see windowOnGrid).
  const guessed = ahead && ((guess: { window: UsageWindow; dayOffset: number; now: number; zone: Zone }) => ahead({ current: guess.window, previous: comparedWindow({ current: guess.window, spec: request.compare, month: request.month, last: request.last, dayOffset: guess.dayOffset, now: guess.now, zone: guess.zone }) }));
  const { window: current, grid, time, now } = await windowOnGrid(ctx, request, 'day', check, guessed);
  const previous = comparedWindow({ current, spec: request.compare, month: request.month, last: request.last, dayOffset: grid.offset, now, zone: time.zone });
  return { current, previous, grid, time };
}

/** The two windows' totals from the usage series, asked for together (and the series, for views that show the days). */
export async function compareTotals(ctx: Context, w: ComparedWindows, named?: string) {
  const onGrid = { zone: w.time.zone, known: w.grid };
  // Both windows' days from one request where one covers them (92 days): each is cut from it (day-pages.ts).
  const span = { start: Math.min(w.current.start, w.previous.start), end: Math.max(w.current.end, w.previous.end) };
  if (span.end - span.start <= MAX_WINDOW_SECONDS) holdDays(await ctx.client(), span);
  const [a, b] = await Promise.all([windowSeries(ctx, w.current, onGrid), windowSeries(ctx, w.previous, onGrid)]);
  const metric = spendMetric(a.shape ? a : b, named);
  return { row: comparisonRow(seriesSpend(a, metric), seriesSpend(b, metric)), scope: a.scope === b.scope ? a.scope : undefined, metric, series: [a, b] as const };
}

/** The two windows' spend per model (every page), the largest change first. */
export async function compareModels(ctx: Context, w: ComparedWindows, param?: string[]) {
  const [now, before] = await Promise.all([spendPerModel(ctx, w.current, param), spendPerModel(ctx, w.previous, param)]);
  const rows = compareByModel(now.spend, before.spend);
  return { rows, total: totalRow(rows), scope: sameScope(now, before), fields: now.fields ?? before.fields, incomplete: now.incomplete || before.incomplete };
}

function windowSeries(ctx: Context, window: UsageWindow, time: Parameters<typeof loadOnGrid>[2]): Promise<UsageSeries> {
  return loadOnGrid(ctx, { bucket: 'day', since: String(window.start), until: String(window.end) }, time);
}

function sameScope(a: ModelSpendOver, b: ModelSpendOver): Scope | undefined {
  return a.scope === b.scope ? a.scope : undefined;
}

