// tally usage: spend over time, bucket by bucket, with no holes and no invented numbers.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import type { CommandLine } from '../cli/command.js';
import { UsageError } from '../errors.js';
import { BUCKET_SIZES } from '../domain/window.js';
import { emit } from '../output/emit.js';
import { fixedZone } from '../domain/zone.js';
import { wholeNumber } from '../flags/flag-values.js';
import type { ModelUsageRequest } from '../figures/usage-by-model.js';
import { describeWindow, plural } from '../output/window-text.js';
import { loadUsageSeries } from '../figures/usage-series.js';
import { WATCH_FLAGS, watchFlag, watchOrRun } from '../loops/watch.js';
import { windowFlags } from '../flags/options.js';
import { describeGrid, renderUsage, renderUsageChart, usageCsv } from '../output/usage.js';

export { usageFleetRow as fleetRow } from '../output/usage.js';
import { usageJson } from '../figures/usage-series.js';

export interface UsageOptions {
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
  watch?: string | boolean;
}

/** What `tally usage` was asked: the series over time, a window beside another (--compare), or spend per model (--by model). */
export type UsageRequest =
  | { kind: 'series'; options: UsageOptions; watch: number | undefined }
  | { kind: 'compare'; options: UsageOptions; byModel: boolean }
  | { kind: 'by-model'; options: ModelUsageRequest; top: number; topGiven: boolean }
  | { kind: 'by-group'; window: { since?: string; until?: string; month?: string; last?: string } };

/** The flags as a request, every flag that does not go with the others refused before anything is asked. */
export function parse(options: FlagValues<typeof flags>, line: CommandLine): UsageRequest {
  const format = line.output.json ? 'json' : line.output.csv ? 'csv' : undefined;
  if (options.by === 'group') {
    // Every stored profile, added up per group: the fleet is the command itself.
    if (line.profiles) throw new UsageError('--by group reads every stored profile already (leave out --all-profiles / --profiles)');
    for (const flag of ['compare', 'chart', 'watch', 'param', 'all', 'top', 'metric', 'markdown'] as const) if (options[flag] !== undefined && options[flag] !== false) throw new UsageError(`--${flag} does not go with --by group (a total per group over the window)`);
    if (line.given('bucket')) throw new UsageError('--by group adds up the whole window per group; --bucket does not apply');
    if (line.output.csv) throw new UsageError('--by group prints a table or --json');
    const { since, until, month, last } = options;
    return { kind: 'by-group', window: { since, until, month, last } };
  }
  if (line.profiles && options.by === 'model') throw new UsageError('--all-profiles does not go with usage --by model (each profile names its models its own way): run it per profile');
  if (options.markdown && options.compare === undefined) throw new UsageError('--markdown goes with --compare (a comparison as a Markdown table)');
  if (options.compare !== undefined) {
    if (options.watch !== undefined) throw new UsageError('--watch goes with the usage series, not --compare');
    if (options.chart) throw new UsageError('--chart draws one window; --compare sets two side by side (leave out one of them)');
    if (line.given('bucket')) throw new UsageError('--compare sets whole windows side by side; --bucket does not apply (name the window with --since/--until, --month or --last)');
    if (options.top !== undefined) throw new UsageError('--top goes with --by model --bucket, not --compare (every model is a row)');
    if (options.markdown && format) throw new UsageError(`--markdown and --${format} each print the whole result; choose one`);
    const byModel = options.by === 'model';
    if (!byModel && options.param !== undefined) throw new UsageError('--param goes with --by model; /v1/open/usage takes bucket, start and end only');
    if (byModel && options.metric !== undefined) throw new UsageError('--metric names a field of the usage series; --by model reads the amount of its records');
    return { kind: 'compare', options, byModel };
  }
  if (options.by === 'model') {
    if (options.watch !== undefined) throw new UsageError('--watch goes with the usage series, not --by model (one request per period)');
    if (options.bucket === 'hour') throw new UsageError('--by model works per day, week or month, not per hour (drop --bucket hour)');
    if (options.chart) throw new UsageError('--chart draws the usage series over time; --by model sets models side by side (leave out one of them)');
    if (options.metric !== undefined) throw new UsageError('--metric chooses what --chart draws from the usage series; --by model shows every field of its records');
    const bucket = line.given('bucket') ? options.bucket : undefined;
    if (options.top !== undefined && bucket === undefined) throw new UsageError('--top goes with --bucket day|week|month (models as columns)');
    const top = options.top === undefined ? 5 : wholeNumber(options.top, '--top', 1, 50);
    const { since, until, month, last, utcOffset, param, all } = options;
    return { kind: 'by-model', options: { bucket, since, until, month, last, utcOffset, param, all }, top, topGiven: options.top !== undefined };
  }
  for (const flag of ['param', 'all', 'top'] as const) {
    if (options[flag] !== undefined) throw new UsageError(`--${flag} goes with --by model; /v1/open/usage takes bucket, start and end only`);
  }
  if (options.metric !== undefined && !options.chart) throw new UsageError('--metric chooses what --chart draws; it goes with --chart');
  if (options.chart && format) throw new UsageError(`--chart draws for people; --${format} prints the data (leave out --chart)`);
  return { kind: 'series', options, watch: watchFlag(options.watch, line.output) };
}

export const flags = declareFlags({
  bucket: { kind: 'value', value: 'size', help: 'bucket size', choices: BUCKET_SIZES as string[], default: 'day' },
  ...windowFlags('the last 7 days; 24 hours for --bucket hour, 8 weeks for week, 6 months for month; the current one included', 'the end of the current hour, day, week or month'),
  by: { kind: 'value', value: 'dimension', help: 'break spend down by model (GET /v1/open/usage/models), or by group of profiles (tally group; every stored profile, each account once)', choices: ['model', 'group'] },
  top: { kind: 'value', value: 'n', help: 'with --by model and --bucket: the models shown as columns (the rest add up as "other")' },
  param: { kind: 'list', value: 'key=value', help: 'with --by model: pass a query parameter through (repeatable)' },
  all: { kind: 'switch', help: 'with --by model: follow the continuation cursor through every page' },
  chart: { kind: 'switch', help: 'draw the money metric over the window as a chart that fits the terminal' },
  metric: { kind: 'value', value: 'name', help: 'with --chart or --compare: the usage field holding money (default: the money metric)' },
  compare: { kind: 'value', value: 'period', help: 'set the window beside another: previous (the period before, of the same length or calendar unit), last-year (the same dates a year before), a month YYYY-MM, or DATE..DATE' },
  markdown: { kind: 'switch', help: 'with --compare: print a Markdown table (for a pull request or a chat message)' },
  ...WATCH_FLAGS,
});

export async function run(request: UsageRequest, ctx: Context): Promise<void> {
  if (request.kind === 'compare') return runComparison(ctx, request.options, request.byModel);
  if (request.kind === 'by-model') return runModelUsage(ctx, request.options, request.top, request.topGiven);
  if (request.kind === 'by-group') {
    const [{ loadGroupUsage }, { renderGroupUsage }] = await Promise.all([import('../figures/group-usage.js'), import('../output/groups.js')]);
    const usage = await loadGroupUsage(ctx, request.window);
    return emit(ctx, {
      json: { groups: usage.rows.map((r) => ({ group: r.group, profiles: r.profiles, spend: r.spend.toFixed() })), total: usage.total.toFixed(), currency: usage.currency, shared: usage.shared, failed: usage.failed, start: usage.window.start, end: usage.window.end },
      human: () => renderGroupUsage(usage, ctx),
    });
  }
  const options = request.options;
  await watchOrRun(ctx, request.watch, 'tally usage', async () => {
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
async function runComparison(ctx: Context, options: UsageOptions, byModel: boolean): Promise<void> {
  const [{ loadComparison }, view] = await Promise.all([import('../figures/comparison.js'), import('../output/comparison.js')]);
  const comparison = await loadComparison(ctx, { ...options, compare: options.compare!, byModel });
  await emit(ctx, {
    json: () => view.comparisonJson(comparison),
    csv: () => view.comparisonCsv(comparison),
    human: () => (options.markdown ? view.comparisonMarkdown(comparison, ctx.options.exact === true) : view.renderComparison(comparison, ctx)),
  });
}

/** `usage --by model`: the figure, and its view (records over a window, or models as columns per period). */
async function runModelUsage(ctx: Context, options: ModelUsageRequest, top: number, topGiven: boolean): Promise<void> {
  const [{ loadModelUsage, modelUsageJson }, view, { recordsCsvOf, renderRecords }] = await Promise.all([import('../figures/usage-by-model.js'), import('../output/usage-by-model.js'), import('../output/records.js')]);
  const usage = await loadModelUsage(ctx, options);
  const gridZone = fixedZone(usage.grid.offset);
  // The token classes the records report (and what the cache saved, at the catalog's prices).
  const { loadTokenClasses, tokenClassesJson } = await import('../figures/token-classes.js');
  const classes = await loadTokenClasses(ctx, usage.kind === 'window' ? usage.found.records : usage.periods.flatMap((p) => p.found.records));
  const withClasses = () => ({ ...modelUsageJson(usage), ...(classes ? { token_classes: tokenClassesJson(classes) } : {}) });
  const classNotes = classes ? view.classNotes(classes) : [];
  if (usage.kind === 'window') {
    const days = Math.round((usage.window.end - usage.window.start) / 86_400);
    return emit(ctx, {
      json: withClasses,
      csv: () => recordsCsvOf(ctx, usage.found),
      human: async () =>
        renderRecords(usage.found.records, ctx, { amounts: 'account', zone: usage.time.zone, more: usage.found.more, scope: usage.found.scope, notes: [`${describeWindow(usage.window, gridZone, plural(days, 'day'))}, ${describeGrid({ dayGrid: usage.grid })}`, ...classNotes], afterScope: await view.shareNote(usage.share) }),
    });
  }
  await emit(ctx, {
    json: withClasses,
    csv: () => view.periodsCsv(usage.periods, usage.grid),
    human: async () => view.renderPeriods(ctx, usage.periods, { bucket: usage.bucket, grid: usage.grid, window: usage.window, top, topGiven, scope: usage.scope, shareNotes: [...(await view.shareNote(usage.share)), ...classNotes], spend: usage.spend }),
  });
}

