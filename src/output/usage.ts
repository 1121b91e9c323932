// How a usage series is labelled and described: bucket labels on the day grid or in the display
// zone, where the day grid came from, and what the gateway's cache said.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { UsageSeries } from '../figures/usage-series.js';
import { UTC, WEEKDAYS, dateText, formatOffset, isoInZone, spreadsheetDate, two, wallClock } from '../domain/zone.js';
import { isJsonNumber, jsonText, numberText } from '../domain/json.js';
import { isDecimalString } from '../domain/decimal-text.js';
import { scopeText } from '../domain/records.js';
import { ended, periodsOf } from '../domain/window.js';
import { memo } from './memo.js';
import { describeWindow, gridMismatch, plural } from './window-text.js';
import type { usageJson } from '../figures/usage-series.js';
import type { Parsed } from '../domain/json.js';
import type { FleetRow } from './fleet.js';

/**
 * Labels for bucket starts: hours in the display zone (with the offset in force at each hour
 * when it changes within the window: the hour after clocks go back repeats its wall time);
 * days, weeks and months on the day grid.
 */
export function bucketLabeller(series: Pick<UsageSeries, 'bucket' | 'labelZone'> & { window?: UsageSeries['window'] }): (seconds: number) => string {
  const zone = series.labelZone;
  const window = series.window;
  if (series.bucket === 'hour') {
    const offsetChanges = window !== undefined && zone.fixedOffset === undefined && zone.offsetAt(window.start) !== zone.offsetAt(window.end - 1);
    // The hours of a day share its date: it is written once per day, the time of day is arithmetic.
    const dates = new Map<number, string>();
    return (seconds) => {
      const offset = zone.offsetAt(seconds);
      const local = seconds + offset;
      const day = Math.floor(local / 86_400);
      let date = dates.get(day);
      if (date === undefined) dates.set(day, (date = dateText(wallClock(day * 86_400, UTC))));
      const inDay = local - day * 86_400;
      return `${date} ${two(Math.floor(inDay / 3600))}:${two(Math.floor((inDay % 3600) / 60))}${offsetChanges ? ` ${formatOffset(offset)}` : ''}`;
    };
  }
  // Days, weeks and months: a label may be asked for more than once (a chart's axis).
  return memo((seconds: number) => {
    const c = wallClock(seconds, zone);
    switch (series.bucket) {
      case 'day': return `${dateText(c)} ${WEEKDAYS[c.weekday]}`;
      case 'week': return `${dateText(c)} W${two(isoWeek(c))}`;
      default: return dateText(c).slice(0, 7);
    }
  });
}


/** The ISO 8601 week number of a date (weeks start on Monday; week 1 holds January 4th). */
function isoWeek(c: { year: number; month: number; day: number }): number {
  const date = Date.UTC(c.year, c.month - 1, c.day);
  const weekday = (new Date(date).getUTCDay() + 6) % 7;
  const thursday = date + (3 - weekday) * 86_400_000;
  const firstThursday = new Date(thursday);
  const yearStart = Date.UTC(firstThursday.getUTCFullYear(), 0, 1);
  return 1 + Math.floor((thursday - yearStart) / (7 * 86_400_000));
}

/** Where the day grid came from, for a footer. */
export function describeGrid(series: Pick<UsageSeries, 'dayGrid'>): string {
  switch (series.dayGrid.source) {
    case 'flag': return 'day grid from --utc-offset';
    case 'profile': return "day grid from the profile's utc_offset";
    case 'inferred': return series.dayGrid.claimed ? gridMismatch(series.dayGrid) : "the gateway's day grid, inferred from the data";
    case 'learned': return "the gateway's day grid, as seen before";
    case 'assumed': return 'day grid assumed UTC: no buckets to infer it from (set --utc-offset)';
  }
}

export function describeCache(cache: UsageSeries['cache']): string {
  switch (cache) {
    case 'HIT': return 'cached: the gateway answered from its cache (polls within its cache period get the same window)';
    case 'MISS': return 'fresh: computed by the gateway for this request';
    case 'unrecognised': return 'cache state unknown (the gateway sent an X-Cache value tally does not know)';
    default: return 'cache state not reported by the gateway';
  }
}

/**
 * First the bucket's `date` as a spreadsheet reads it (`2026-07-01`, or `2026-07-01 10:00` for
 * hours) in the zone of the labels, then the service's fields as sent, then its start in ISO 8601.
 * An empty window still has its header.
 */
export function usageCsv(series: UsageSeries) {
  const fields = series.shape?.fieldOrder ?? [];
  const hours = series.bucket === 'hour';
  return {
    header: ['date', ...fields, 'start_iso'],
    rows: series.buckets.map((bucket, i) => [spreadsheetDate(series.slots[i]!, series.labelZone, hours), ...fields.map((name) => jsonText(bucket[name])), isoInZone(series.slots[i]!, series.labelZone)]),
  };
}

export async function renderUsage(series: UsageSeries, ctx: Context): Promise<string> {
  const [{ renderTable, barMaker }, { formatAmount, formatCount }, { styleFor }, { fitLines }] = await Promise.all([
    import('../output/table.js'),
    import('../output/money.js'),
    import('../output/style.js'),
    import('../output/wrap.js'),
  ]);
  const style = await styleFor(ctx);
  const paint = style.paint;
  const drawBar = barMaker(20, style);
  const shape = series.shape;
  const metrics = shape?.metrics ?? [];
  const money = shape?.moneyMetric;
  const exact = ctx.options.exact;
  const amounts = series.buckets.map((bucket) => (money && isDecimalString(bucket[money]) ? (bucket[money] as string) : undefined));
  // Most buckets of a long window hold the same zero: each distinct amount is looked at once.
  const distinct = [...new Set(amounts)].filter((a): a is string => a !== undefined);
  // Bars only need the largest amount roughly (a bar is 20 cells); the amounts shown are exact.
  const largest = distinct.reduce((max, a) => Math.max(max, Number(a)), 0);
  // Each distinct value is formatted once: a long window repeats the same few.
  const count = memo(formatCount);
  const moneyText = memo((text: string) => (isDecimalString(text) ? formatAmount(text, 'account', { exact }) : jsonText(text)));
  const otherText = memo((text: string) => (isDecimalString(text) ? count(text) : jsonText(text)));
  const numberCell = memo((value: number) => count(String(value)));
  const cell = (name: string, value: unknown): string => {
    if (value === null || value === undefined) return '';
    if (typeof value === 'string') return name === money ? moneyText(value) : otherText(value);
    if (typeof value === 'number') return numberCell(value);
    if (isJsonNumber(value)) return count(numberText(value));
    return jsonText(value);
  };
  const columns = [
    { header: series.bucket },
    ...metrics.map((m, i) => ({ header: m.name === money ? `${m.name} (¥)` : m.name, align: 'decimal' as const, dropOrder: m.name === money ? 0 : i + 1 })),
    ...(money ? [{ header: '', name: 'bar', drawn: true, dropOrder: metrics.length + 1 }] : []),
  ];
  const label = bucketLabeller(series);
  const now = Math.floor(ctx.now() / 1000);
  const last = series.slots.length - 1;
  const rows = series.buckets.map((bucket, index) => {
    const slot = series.slots[index]!;
    // A week or month not yet over says so.
    const toDate = (series.bucket === 'week' || series.bucket === 'month') && index === last && !ended(series.window, now) && now >= slot;
    // A week or month cut to a calendar window holds only the window's days: it says so.
    const cells = [toDate ? `${label(slot)} (to date)` : series.partial?.includes(slot) ? `${label(slot)} (part)` : label(slot)];
    for (const m of metrics) cells.push(cell(m.name, bucket[m.name]));
    if (money) {
      const a = amounts[index];
      cells.push(drawBar(a === undefined || largest === 0 ? 0 : Number(a) / largest));
    }
    return cells;
  });
  const footer = ['total', ...metrics.map((m) => cell(m.name, series.totals[m.name])), ...(money ? [''] : [])];
  const table = await renderTable({ columns, rows, footer }, style);
  const unit = series.bucket;
  const notes: string[] = [];
  if (!shape) notes.push('the gateway has no usage to show for this window (nor in the 92 days before its end), so not even its field names are known');
  else if (series.shapeFromWiderWindow) notes.push('no calls in this window; field names learned from the 92 days before its end');
  notes.push(`${describeWindow(series.window, series.labelZone, plural(periodsOf(series.window, unit, series.dayGrid.offset).length, unit))}${unit === 'hour' ? '' : `, ${describeGrid(series)}`}`);
  const details: string[] = [];
  if (series.partial?.length) details.push(`${plural(series.partial.length, unit)} marked "part" cut to the window: their days outside it are not counted`);
  if (series.filled > 0) details.push(`${plural(series.filled, unit)} without calls shown as zero`);
  if (series.requests > 1) details.push(`fetched in ${series.requests} requests of at most 92 days`);
  details.push(describeCache(series.cache));
  notes.push(details.join('; '));
  const scope = scopeText(series.scope);
  if (scope) notes.push(scope);
  return `${table}${paint.dim(await fitLines(notes.join('\n'), style.width))}\n`;
}

/** The money metric (or --metric) over the window as a chart, with the window and the grid under it. */
export async function renderUsageChart(series: UsageSeries, ctx: Context, named: string | undefined): Promise<string> {
  const [{ renderChart }, { styleFor }, { fitLines }] = await Promise.all([import('../output/chart.js'), import('../output/style.js'), import('../output/wrap.js')]);
  const style = await styleFor(ctx);
  const metrics = series.shape?.metrics ?? [];
  const metric = named === undefined ? metrics.find((m) => m.name === series.shape?.moneyMetric) : metrics.find((m) => m.name === named);
  if (named !== undefined && series.shape && !metric) throw new UsageError(`--metric "${named}" is not a field of the usage buckets (they have: ${metrics.map((m) => m.name).join(', ') || 'none'})`);
  const label = bucketLabeller(series);
  const notes = [`${describeWindow(series.window, series.labelZone, plural(periodsOf(series.window, series.bucket, series.dayGrid.offset).length, series.bucket))}${series.bucket === 'hour' ? '' : `, ${describeGrid(series)}`}`];
  if (!metric) return `${style.paint.dim(await fitLines(['no usage to draw: the gateway named no money field in this window', ...notes].join('\n'), style.width))}\n`;
  const values = series.buckets.map((bucket) => {
    const value = bucket[metric.name];
    return isJsonNumber(value) ? numberText(value) : isDecimalString(value) ? value : '';
  });
  const chart = await renderChart({
    values,
    labels: series.slots.map((slot) => label(slot)),
    kind: metric.type === 'decimal-string' ? 'account' : 'count',
    width: style.width,
    height: Math.max(4, Math.min(12, ctx.io.stdoutIsTTY ? ctx.io.height - 8 : 12)),
    colour: style.color,
    unit: series.bucket,
  });
  const title = `${metric.name}${metric.type === 'decimal-string' ? ' (¥)' : ''} per ${chart.perColumn === 1 ? series.bucket : `${chart.perColumn} ${series.bucket}s (each column adds them up)`}`;
  return `${style.paint.bold(title)}\n${chart.text}${style.paint.dim(await fitLines(notes.join('\n'), style.width))}\n`;
}

/** The money field of a usage document's totals: the decimal strings (the spec's money metric). */
function usageSpend(result: Parsed<ReturnType<typeof usageJson>>): string | undefined {
  const money = Object.values(result.totals).filter(isDecimalString);
  return money.length === 1 ? money[0] : undefined;
}

/** The usage series' row in the fleet's table: its spend and its window. */
export const usageFleetRow: FleetRow<Parsed<ReturnType<typeof usageJson>>> = {
  columns: [
    { header: 'spend', value: usageSpend, amount: true },
    { header: 'window', value: (r) => `${r.start_iso.slice(0, 10)} → ${r.end_iso.slice(0, 10)}` },
  ],
};
