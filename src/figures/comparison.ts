// Two periods side by side (`usage --compare`, `check --max-growth`): the window asked for and the
// one it is compared with, on the same day grid, asked for together; their totals from the usage
// series (whose scope the gateway states), or per model from the records of usage by model.
import type { Context } from '../context.js';
import { ServiceError } from '../errors.js';
import { isDecimalString } from '../domain/decimal-text.js';
import { type ComparisonRow, compareByModel, comparedWindow, comparisonRow, totalRow } from '../domain/comparison.js';
import { Decimal } from '../domain/money.js';
import type { Scope } from '../domain/records.js';
import { type UsageWindow, resolveWindow } from '../domain/window.js';
import { spendMetric } from './forecast.js';
import { type DayGrid, type WindowOptions, timeSettings } from './day-grid.js';
import { type UsageSeries, knownDayGrid, loadOnGrid } from './usage-series.js';
import { type ModelSpendOver, modelSpendOver } from './usage-by-model.js';

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
}

export async function loadComparison(ctx: Context, request: ComparisonRequest): Promise<Comparison> {
  const time = await timeSettings(ctx, request);
  // Both windows on one grid: learned first (without a request when it is known), then asked for together.
  const grid = await knownDayGrid(ctx, time);
  const now = Math.floor(ctx.now() / 1000);
  const resolved = resolveWindow({ ...request, now, zone: time.zone, bucket: 'day', dayOffset: grid.offset });
  const current = { start: resolved.start, end: resolved.end };
  const previous = comparedWindow({ current, spec: request.compare, month: request.month, last: request.last, dayOffset: grid.offset, now, zone: time.zone });
  if (request.byModel) {
    const [now_, before] = await Promise.all([modelSpendOver(ctx, current, request.param), modelSpendOver(ctx, previous, request.param)]);
    const rows = compareByModel(now_.spend, before.spend);
    return { current, previous, grid, rows, totals: totalRow(rows), byModel: true, scope: sameScope(now_, before), field: now_.field ?? before.field, incomplete: now_.incomplete || before.incomplete };
  }
  const onGrid = { zone: time.zone, known: grid };
  const [a, b] = await Promise.all([windowSeries(ctx, current, onGrid), windowSeries(ctx, previous, onGrid)]);
  const metric = spendMetric(a.shape ? a : b, request.metric);
  const totals = comparisonRow(seriesSpend(a, metric), seriesSpend(b, metric));
  return { current: a.window, previous: b.window, grid: a.dayGrid, rows: [totals], totals, byModel: false, scope: a.scope === b.scope ? a.scope : undefined, field: metric, incomplete: false };
}

function windowSeries(ctx: Context, window: UsageWindow, time: Parameters<typeof loadOnGrid>[2]): Promise<UsageSeries> {
  return loadOnGrid(ctx, { bucket: 'day', since: String(window.start), until: String(window.end) }, time);
}

function sameScope(a: ModelSpendOver, b: ModelSpendOver): Scope | undefined {
  return a.scope === b.scope ? a.scope : undefined;
}

/** The spend of a series: its money field's total (--metric, else the one discovered); zero when there is no usage at all, never when the total is unreadable. */
export function seriesSpend(series: UsageSeries, metric: string | undefined): Decimal {
  if (metric === undefined) return new Decimal(0);
  const value = series.totals[metric];
  if (value === undefined || value === null) {
    if (series.filled === series.buckets.length) return new Decimal(0);
    throw new ServiceError(`usage totals carry no "${metric}" although the buckets do`);
  }
  if (!isDecimalString(value)) throw new ServiceError(`usage totals."${metric}" is not a decimal amount`);
  return new Decimal(value);
}
