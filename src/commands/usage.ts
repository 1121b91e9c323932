// tally usage: spend over time, bucket by bucket, with no holes and no invented numbers.
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { timeOf } from '../domain/buckets.js';
import { isJsonNumber, jsonText, numberText } from '../domain/json.js';
import { isDecimalString } from '../domain/decimal-text.js';
import { formatUtcOffset } from '../domain/offset.js';
import { emit } from '../output/emit.js';
import { memo } from '../output/memo.js';
import { type UsageSeries, addWindowOptions, loadUsageSeries } from './usage-series.js';
import { addRecordOptions, runRecordCommand } from './records-view.js';

interface UsageOptions {
  bucket?: string;
  since?: string;
  until?: string;
  utcOffset?: string;
  by?: string;
  param?: string[];
  all?: boolean;
}

export function configure(command: Command): void {
  command.addOption(new Option('--bucket <size>', 'bucket size: hour or day').default('day'));
  addWindowOptions(command);
  command.addOption(new Option('--by <dimension>', 'break down by model (GET /v1/open/usage/models)'));
  addRecordOptions(command);
}

export async function run(raw: Record<string, unknown>, ctx: Context): Promise<void> {
  const options = raw as UsageOptions;
  if (options.by !== undefined) {
    if (options.by !== 'model') throw new UsageError(`--by "${options.by}" is not supported (use --by model)`);
    return runRecordCommand(ctx, { ...options, path: '/v1/open/usage/models', defaultSpan: '7d', ndjson: false });
  }
  if (options.param?.length) throw new UsageError('--param goes with --by model or `tally logs`; /v1/open/usage takes bucket, start and end only');
  const series = await loadUsageSeries(ctx, options);
  await emit(ctx, {
    json: {
      bucket: series.bucket,
      start: series.window.start,
      end: series.window.end,
      buckets: series.buckets,
      totals: series.totals,
      cache: series.cache,
    },
    csv: () => usageCsv(series),
    human: () => renderUsage(series, ctx),
  });
}

function usageCsv(series: UsageSeries) {
  const header = series.shape?.fieldOrder ?? [];
  return { header, rows: series.buckets.map((bucket) => header.map((name) => jsonText(bucket[name]))) };
}

/** Labels bucket starts with wall-clock time on the grid's zone (days) or the display zone (hours). */
function labeller(series: UsageSeries, displayOffset: number): (seconds: number) => string {
  const wall = new Date(0);
  // A long hourly window covers few days and repeats the same 24 hours: work each out once.
  const dates = new Map<number, string>();
  const clocks: string[] = [];
  return (seconds) => {
    const local = seconds + displayOffset;
    const day = Math.floor(local / 86_400);
    let date = dates.get(day);
    if (date === undefined) {
      wall.setTime(day * 86_400_000);
      date = `${wall.getUTCFullYear()}-${two(wall.getUTCMonth() + 1)}-${two(wall.getUTCDate())}`;
      if (series.bucket === 'day') date += ` ${WEEKDAYS[wall.getUTCDay()]}`;
      dates.set(day, date);
    }
    if (series.bucket === 'day') return date;
    const minutes = Math.floor((local - day * 86_400) / 60);
    return `${date} ${(clocks[minutes] ??= `${two(Math.floor(minutes / 60))}:${two(minutes % 60)}`)}`;
  };
}
const two = (n: number) => (n < 10 ? `0${n}` : String(n));
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

async function renderUsage(series: UsageSeries, ctx: Context): Promise<string> {
  const [{ renderTable, barMaker }, { yuan }, { styleFor }] = await Promise.all([
    import('../output/table.js'),
    import('../output/money.js'),
    import('../output/style.js'),
  ]);
  const style = await styleFor(ctx);
  const paint = style.paint;
  const drawBar = barMaker(20, style);
  const shape = series.shape;
  const metrics = shape?.metrics ?? [];
  const money = shape?.moneyMetric;
  // Day labels follow the service's day grid; hour labels the --utc-offset zone or this machine's.
  const displayOffset = series.labelOffset;
  const amounts = series.buckets.map((bucket) => (money && isDecimalString(bucket[money]) ? (bucket[money] as string) : undefined));
  // Most buckets of a long window hold the same zero: look at each distinct amount once.
  const distinct = [...new Set(amounts)].filter((a): a is string => a !== undefined);
  // Bars only need the largest amount roughly (a bar is 20 cells); the amounts shown are exact.
  const largest = distinct.reduce((max, a) => Math.max(max, Number(a)), 0);
  const scale = moneyScale(distinct);
  const shown = new Map<string, string>(distinct.map((a) => [a, yuan(a, 'CNY', scale)]));
  const grouped = memo(groupDigits);
  const format = (name: string, value: unknown) => {
    if (name === money && isDecimalString(value)) return shown.get(value) ?? yuan(value, 'CNY', scale);
    if (isJsonNumber(value)) return grouped(numberText(value));
    return jsonText(value);
  };
  // Cells are tally's own text (time labels, validated numbers and decimals): only the
  // headers, which are the service's field names, need escaping.
  const columns = [
    { header: series.bucket === 'day' ? 'day' : 'hour', align: 'left' as const, trusted: true },
    ...metrics.map((m, i) => ({ header: m.name === money ? `${m.name} (¥)` : m.name, align: 'right' as const, dropOrder: m.name === money ? 0 : i + 1, trusted: true })),
    ...(money ? [{ header: '', align: 'left' as const, dropOrder: metrics.length + 1, trusted: true }] : []),
  ];
  const label = labeller(series, displayOffset);
  const rows = series.buckets.map((bucket, index) => {
    const t = timeOf(bucket[shape!.timeField]);
    const amount = amounts[index];
    const cells = [label(t)];
    for (const m of metrics) cells.push(m.name === money && amount !== undefined ? shown.get(amount)! : format(m.name, bucket[m.name]));
    if (money) cells.push(drawBar(amount === undefined || largest === 0 ? 0 : Number(amount) / largest));
    return cells;
  });
  const footer = ['total', ...metrics.map((m) => format(m.name, series.totals[m.name])), ...(money ? [''] : [])];
  const table = await renderTable({ columns, rows, footer }, style);
  const zone = `UTC${formatUtcOffset(Math.round(displayOffset / 60))}`;
  const grid = series.bucket === 'day' ? `day grid ${zone} (${series.gridSource === 'inferred' ? 'inferred from the data' : series.gridSource === 'flag' ? '--utc-offset' : 'assumed: no buckets to infer it from'})` : `hours shown in ${zone}`;
  const notes = [
    `${series.buckets.length} ${series.bucket}s, ${grid}${series.filled > 0 ? `; ${series.filled} without calls shown as zero` : ''}${series.requests > 1 ? `; fetched in ${series.requests} requests of at most 92 days` : ''}`,
    series.cache === 'HIT'
      ? 'cached: the gateway answered from its cache; polls within its cache period get the same window'
      : series.cache === 'MISS' ? 'fresh: computed by the gateway for this request' : 'cache state not reported by the gateway',
  ];
  if (!shape) notes.unshift('the gateway has no usage to show for this window (nor in the 92 days before its end), so not even its field names are known');
  else if (series.shapeFromWiderWindow) notes.unshift('no calls in this window; field names learned from the 92 days before its end');
  return `${table}${notes.map((n) => paint.dim(n)).join('\n')}\n`;
}

/** Decimals to show in a money column: as many as its most precise value, at least two. */
function moneyScale(values: string[]): number {
  let scale = 2;
  for (const value of values) {
    const dot = value.indexOf('.');
    if (dot < 0) continue;
    let end = value.length;
    while (end > dot + 1 && value.charCodeAt(end - 1) === 48) end--;
    if (end - dot - 1 > scale) scale = end - dot - 1;
  }
  return scale;
}

function groupDigits(text: string): string {
  if (text.length <= 3) return text;
  const [whole = '', fraction] = text.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

