// tally usage: spend over time, bucket by bucket, with no holes and no invented numbers.
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { isJsonNumber, jsonText, numberText } from '../domain/json.js';
import { isDecimalString } from '../domain/decimal-text.js';
import { scopeText } from '../domain/records.js';
import { BUCKET_SIZES, periodsOf } from '../domain/window.js';
import { isoInZone, spreadsheetDate } from '../domain/zone.js';
import { memo } from '../output/memo.js';
import { emit } from '../output/emit.js';
import { fixedZone } from '../domain/zone.js';
import { wholeNumber } from '../cli/flag-values.js';
import type { ModelUsageRequest } from '../figures/usage-by-model.js';
import { describeWindow, plural } from '../output/window-text.js';
import { type UsageSeries, loadUsageSeries } from '../figures/usage-series.js';
import { addWatchOption, watchOrRun } from '../cli/watch.js';
import { addWindowOptions } from '../cli/options.js';
import { bucketLabeller, describeCache, describeGrid } from '../output/usage.js';
import { usageJson } from '../figures/usage-series.js';

interface UsageOptions {
  bucket: string;
  chart?: boolean;
  metric?: string;
  since?: string;
  until?: string;
  utcOffset?: string;
  by?: string;
  param?: string[];
  all?: boolean;
  top?: string;
  compare?: string;
  markdown?: boolean;
  month?: string;
  last?: string;
}

export function configure(command: Command): void {
  command.addOption(new Option('--bucket <size>', 'bucket size').choices(BUCKET_SIZES as string[]).default('day'));
  addWindowOptions(command, 'the last 7 days; 24 hours for --bucket hour, 8 weeks for week, 6 months for month; the current one included', 'the end of the current hour, day, week or month');
  command
    .addOption(new Option('--by <dimension>', 'break spend down by model (GET /v1/open/usage/models)').choices(['model']))
    .option('--top <n>', 'with --by model and --bucket: the models shown as columns (the rest add up as "other")')
    .option('--param <key=value>', 'with --by model: pass a query parameter through (repeatable)', (value: string, all: string[] = []) => [...all, value])
    .option('--all', 'with --by model: follow the continuation cursor through every page')
    .option('--chart', 'draw the money metric over the window as a chart that fits the terminal')
    .option('--metric <name>', 'with --chart or --compare: the usage field holding money (default: the money metric)')
    .option('--compare <period>', 'set the window beside another: previous (the period before, of the same length or calendar unit), a month YYYY-MM, or DATE..DATE')
    .option('--markdown', 'with --compare: print a Markdown table (for a pull request or a chat message)');
  addWatchOption(command);
}

export async function run(raw: Record<string, unknown>, ctx: Context, _args: string[] = [], given: (name: string) => boolean = () => false): Promise<void> {
  const options = raw as unknown as UsageOptions;
  if (options.markdown && options.compare === undefined) throw new UsageError('--markdown goes with --compare (a comparison as a Markdown table)');
  if (options.compare !== undefined) return runComparison(ctx, raw, options, given);
  if (options.by === 'model') {
    if (raw.watch !== undefined) throw new UsageError('--watch goes with the usage series, not --by model (one request per period)');
    if (options.bucket === 'hour') throw new UsageError('--by model works per day, week or month, not per hour (drop --bucket hour)');
    if (options.chart) throw new UsageError('--chart draws the usage series over time; --by model sets models side by side (leave out one of them)');
    if (options.metric !== undefined) throw new UsageError('--metric chooses what --chart draws from the usage series; --by model shows every field of its records');
    return runModelUsage(ctx, { ...options, bucket: given('bucket') ? options.bucket : undefined });
  }
  for (const flag of ['param', 'all', 'top'] as const) {
    if (options[flag] !== undefined) throw new UsageError(`--${flag} goes with --by model; /v1/open/usage takes bucket, start and end only`);
  }
  if (options.metric !== undefined && !options.chart) throw new UsageError('--metric chooses what --chart draws; it goes with --chart');
  if (options.chart && (ctx.options.json || ctx.options.csv)) throw new UsageError(`--chart draws for people; --${ctx.options.json ? 'json' : 'csv'} prints the data (leave out --chart)`);
  await watchOrRun(ctx, raw, 'tally usage', async () => {
    const series = await loadUsageSeries(ctx, options);
    return {
      json: () => usageJson(series),
      csv: () => usageCsv(series),
      human: () => (options.chart ? renderUsageChart(series, ctx, options.metric) : renderUsage(series, ctx)),
      note: series.cache === 'HIT' ? "the gateway's cached window" : undefined,
    };
  });
}

/** `usage --compare`: the window beside the period before it (or the one named), in total or per model. */
async function runComparison(ctx: Context, raw: Record<string, unknown>, options: UsageOptions, given: (name: string) => boolean): Promise<void> {
  if (raw.watch !== undefined) throw new UsageError('--watch goes with the usage series, not --compare');
  if (options.chart) throw new UsageError('--chart draws one window; --compare sets two side by side (leave out one of them)');
  if (given('bucket')) throw new UsageError('--compare sets whole windows side by side; --bucket does not apply (name the window with --since/--until, --month or --last)');
  if (options.top !== undefined) throw new UsageError('--top goes with --by model --bucket, not --compare (every model is a row)');
  if (options.markdown && (ctx.options.json || ctx.options.csv)) throw new UsageError(`--markdown and --${ctx.options.json ? 'json' : 'csv'} each print the whole result; choose one`);
  const byModel = options.by === 'model';
  if (!byModel && options.param !== undefined) throw new UsageError('--param goes with --by model; /v1/open/usage takes bucket, start and end only');
  if (byModel && options.metric !== undefined) throw new UsageError('--metric names a field of the usage series; --by model reads the amount of its records');
  const [{ loadComparison }, view] = await Promise.all([import('../figures/comparison.js'), import('../output/comparison.js')]);
  const comparison = await loadComparison(ctx, { ...options, compare: options.compare!, byModel });
  await emit(ctx, {
    json: () => view.comparisonJson(comparison),
    csv: () => view.comparisonCsv(comparison),
    human: () => (options.markdown ? view.comparisonMarkdown(comparison, ctx.options.exact === true) : view.renderComparison(comparison, ctx)),
  });
}

/** `usage --by model`: the figure, and its view (records over a window, or models as columns per period). */
async function runModelUsage(ctx: Context, options: ModelUsageRequest & { top?: string }): Promise<void> {
  if (options.top !== undefined && options.bucket === undefined) throw new UsageError('--top goes with --bucket day|week|month (models as columns)');
  const top = options.top === undefined ? 5 : wholeNumber(options.top, '--top', 1, 50);
  const [{ loadModelUsage, modelUsageJson }, view, { recordsCsvOf, renderRecords }] = await Promise.all([import('../figures/usage-by-model.js'), import('../output/usage-by-model.js'), import('../output/records.js')]);
  const usage = await loadModelUsage(ctx, options);
  const gridZone = fixedZone(usage.grid.offset);
  if (usage.kind === 'window') {
    const days = Math.round((usage.window.end - usage.window.start) / 86_400);
    return emit(ctx, {
      json: () => modelUsageJson(usage),
      csv: () => recordsCsvOf(ctx, usage.found),
      human: async () =>
        renderRecords(usage.found.records, ctx, { amounts: 'account', zone: usage.time.zone, more: usage.found.more, scope: usage.found.scope, notes: [`${describeWindow(usage.window, gridZone, plural(days, 'day'))}, ${describeGrid({ dayGrid: usage.grid })}`], afterScope: await view.shareNote(usage.share) }),
    });
  }
  await emit(ctx, {
    json: () => modelUsageJson(usage),
    csv: () => view.periodsCsv(usage.periods, usage.grid),
    human: async () => view.renderPeriods(ctx, usage.periods, { bucket: usage.bucket, grid: usage.grid, window: usage.window, top, topGiven: options.top !== undefined, scope: usage.scope, shareNotes: await view.shareNote(usage.share) }),
  });
}

/**
 * First the bucket's `date` as a spreadsheet reads it (`2026-07-01`, or `2026-07-01 10:00` for
 * hours) in the zone of the labels, then the service's fields as sent, then its start in ISO 8601.
 * An empty window still has its header.
 */
function usageCsv(series: UsageSeries) {
  const fields = series.shape?.fieldOrder ?? [];
  const hours = series.bucket === 'hour';
  return {
    header: ['date', ...fields, 'start_iso'],
    rows: series.buckets.map((bucket, i) => [spreadsheetDate(series.slots[i]!, series.labelZone, hours), ...fields.map((name) => jsonText(bucket[name])), isoInZone(series.slots[i]!, series.labelZone)]),
  };
}

async function renderUsage(series: UsageSeries, ctx: Context): Promise<string> {
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
    const toDate = (series.bucket === 'week' || series.bucket === 'month') && index === last && now < series.window.end && now >= slot;
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
async function renderUsageChart(series: UsageSeries, ctx: Context, named: string | undefined): Promise<string> {
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

