// tally usage --by model: spend per model over the window (GET /v1/open/usage/models), and with
// --bucket day|week|month per model over time, one request per period.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { type JsonObject, jsonText } from '../domain/json.js';
import { isDecimalString } from '../domain/decimal-text.js';
import { type Scope, describeColumns, scopeText } from '../domain/records.js';
import { Decimal, decimalText } from '../domain/money.js';
import { TallyError } from '../errors.js';
import { type BucketSize, parseBucket, periodsOf, resolveWindow } from '../domain/window.js';
import { fixedZone, spreadsheetDate } from '../domain/zone.js';
import { emit } from '../output/emit.js';
import { describeWindow, plural, windowJson } from '../output/window-text.js';
import { DEFAULT_MAX_PAGES, type PagedRecords, fetchAllPages, parseParams, recordsCsv, recordsCsvOf, recordsJson, renderRecords } from './records-view.js';
import { describeGrid, bucketLabeller } from './usage.js';
import { knownDayGrid, loadUsageSeries } from './usage-series.js';
import { type DayGrid, type WindowOptions, timeSettings } from './window-options.js';
import { wholeNumber } from './flag-values.js';

export interface ModelUsageOptions extends WindowOptions {
  /** undefined: one window; otherwise one request per period. */
  bucket?: string;
  param?: string[];
  all?: boolean;
  top?: string;
}

const PATH = '/v1/open/usage/models';
/** At most one minute of the account rate limit (120 requests) per run. */
const MAX_PERIODS = 120;

export async function runModelUsage(ctx: Context, options: ModelUsageOptions): Promise<void> {
  const query = parseParams(options.param);
  if (options.top !== undefined && options.bucket === undefined) throw new UsageError('--top goes with --bucket day|week|month (models as columns)');
  const top = options.top === undefined ? 5 : wholeNumber(options.top, '--top', 1, 50);
  const time = await timeSettings(ctx, options);
  const grid = await knownDayGrid(ctx, time);
  const gridZone = fixedZone(grid.offset);
  const now = Math.floor(ctx.now() / 1000);
  const client = await ctx.client();
  const paging = { all: options.all === true, maxPages: DEFAULT_MAX_PAGES };

  if (options.bucket === undefined) {
    const window = resolveWindow({ ...options, now, zone: time.zone, bucket: 'day', dayOffset: grid.offset });
    const [found, account] = await Promise.all([fetchAllPages(ctx, client, PATH, { start: String(window.start), end: String(window.end), ...query }, paging), accountSpend(ctx, window)]);
    const days = Math.round((window.end - window.start) / 86_400);
    const share = keyShare([found], account);
    return emit(ctx, {
      // The service's own `scope` stays as it sent it; tally says whose figures only where it said nothing.
      json: () => ({ ...shareJson('scope' in found.extra ? 'as-sent' : found.scope, share), ...recordsJson(found, window, gridZone) }),
      csv: () => recordsCsvOf(ctx, found),
      human: async () =>
        renderRecords(found.records, ctx, { amounts: 'account', zone: time.zone, more: found.more, scope: found.scope, notes: [`${describeWindow(window, gridZone, plural(days, 'day'))}, ${describeGrid({ dayGrid: grid })}`], afterScope: await shareNote(share) }),
    });
  }

  const bucket = parseBucket(options.bucket, ['day', 'week', 'month']);
  const window = resolveWindow({ ...options, now, zone: time.zone, bucket, dayOffset: grid.offset });
  // Periods cut to a calendar window where they reach past it (--month 2026-10 --bucket week).
  const wanted = periodsOf(window, bucket, grid.offset);
  if (wanted.length > MAX_PERIODS) {
    throw new UsageError(`${plural(wanted.length, bucket)} would take ${wanted.length} requests, more than the ${MAX_PERIODS} a minute the gateway allows; use a longer --bucket or a shorter window`);
  }
  // One request per period, independent of each other: they go out together (the pool sends at
  // most 4 at a time, and pacing keeps within the rate limit), in the periods' order when done.
  let done = 0;
  const [periods, account] = await Promise.all([
    Promise.all(
      wanted.map(async ({ start, end, partial }) => {
        const found = await fetchAllPages(ctx, client, PATH, { start: String(start), end: String(end), ...query }, paging);
        ctx.progress(`usage by model: ${++done} of ${wanted.length} ${bucket}s fetched…`);
        return { start, end, partial, found };
      }),
    ).finally(() => ctx.progress(undefined)),
    accountSpend(ctx, window),
  ]);
  // Whose figures they are: what every period's answer says (one that disagrees leaves it unknown).
  const scope = periods.every((p) => p.found.scope === periods[0]?.found.scope) ? periods[0]?.found.scope : undefined;
  const share = keyShare(periods.map((p) => p.found), account);
  await emit(ctx, {
    json: () => ({ bucket, ...windowJson(window, gridZone), ...shareJson(scope, share), periods: periods.map((p) => ({ start: p.start, end: p.end, ...(p.partial ? { partial: true } : {}), records: p.found.records })) }),
    csv: () => periodsCsv(periods, grid),
    human: async () => renderPeriods(ctx, periods, { bucket, grid, window, top, topGiven: options.top !== undefined, scope, shareNotes: await shareNote(share) }),
  });
}

/**
 * The account's spend over the same window (the usage series, when the gateway says it is the
 * account's), asked beside the per-model figures; undefined when it cannot be known (never a zero).
 */
async function accountSpend(ctx: Context, window: { start: number; end: number }): Promise<string | undefined> {
  try {
    const series = await loadUsageSeries(ctx, { bucket: 'day', since: String(window.start), until: String(window.end) });
    const metric = series.shape?.moneyMetric;
    const total = metric === undefined ? undefined : series.totals[metric];
    return series.scope === 'account' && isDecimalString(total) ? total : undefined;
  } catch (error) {
    if (error instanceof TallyError && error.kind === 'interrupted') throw error;
    ctx.debug(`the account's spend over the window could not be read: ${(error as Error).message}`);
    return undefined;
  }
}

interface KeyShare {
  key: string;
  account: string;
}

/** The key's spend (the records' money field, every page) beside the account's, when the records are the key's and complete. */
function keyShare(pages: PagedRecords[], account: string | undefined): KeyShare | undefined {
  if (account === undefined || pages.some((p) => p.scope !== 'key' || p.more !== undefined)) return undefined;
  const records = pages.flatMap((p) => p.records);
  const fields = modelAndSpend(records);
  if (!fields) return undefined;
  let key = new Decimal(0);
  for (const record of records) if (isDecimalString(record[fields.spend])) key = key.plus(record[fields.spend] as string);
  return { key: decimalText(key), account };
}

function shareJson(scope: Scope | undefined | 'as-sent', share: KeyShare | undefined): Record<string, unknown> {
  return { ...(scope === 'as-sent' ? {} : { scope: scope ?? null }), ...(share ? { key_spend: share.key, account_spend: share.account } : {}) };
}

async function shareNote(share: KeyShare | undefined): Promise<string[]> {
  if (!share) return [];
  const { formatAmount, formatShare } = await import('../output/money.js');
  return [`this key: ${formatAmount(share.key, 'account')} of the whole account's ${formatAmount(share.account, 'account')} in this window (${formatShare(share.key, share.account)})`];
}

/** Long form: one row per record, its period (the date it starts on the day grid) first. */
function periodsCsv(periods: { start: number; found: PagedRecords }[], grid: DayGrid) {
  const zone = fixedZone(grid.offset);
  const header = describeColumns(periods.flatMap((p) => p.found.records)).map((c) => c.name);
  const rows = periods.flatMap((p) => p.found.records.map((record) => [spreadsheetDate(p.start, zone, false), ...header.map((name) => jsonText(record[name]))]));
  return { header: ['date', ...header], rows };
}

/** Which field names the model and which holds its spend, in records whose names are not published. */
export function modelAndSpend(records: JsonObject[]): { model: string; spend: string } | undefined {
  const columns = describeColumns(records);
  const text = columns.filter((c) => c.kind === 'text' && records.some((r) => typeof r[c.name] === 'string'));
  const model = text.find((c) => /^model(_name|_id)?$/i.test(c.name)) ?? text.find((c) => /model/i.test(c.name)) ?? text[0];
  const money = columns.filter((c) => c.kind === 'money');
  const spend = money.find((c) => /cost|spend|amount|yuan|fee|price/i.test(c.name)) ?? money[0];
  return model && spend ? { model: model.name, spend: spend.name } : undefined;
}

async function renderPeriods(
  ctx: Context,
  periods: { start: number; end: number; partial: boolean; found: PagedRecords }[],
  how: { bucket: BucketSize; grid: DayGrid; window: { start: number; end: number }; top: number; topGiven: boolean; scope: Scope | undefined; shareNotes: string[] },
): Promise<string> {
  const [{ renderTable }, { formatAmount }, { styleFor }, { fitLines }, { Decimal }, { displayWidth }] = await Promise.all([
    import('../output/table.js'),
    import('../output/money.js'),
    import('../output/style.js'),
    import('../output/wrap.js'),
    import('../domain/money.js'),
    import('../output/width.js'),
  ]);
  const style = await styleFor(ctx);
  const gridZone = fixedZone(how.grid.offset);
  const label = bucketLabeller({ bucket: how.bucket, labelZone: gridZone });
  const all = periods.flatMap((p) => p.found.records);
  const fields = modelAndSpend(all);
  const whose = scopeText(how.scope);
  const notes = [`${describeWindow(how.window, gridZone, plural(periods.length, how.bucket))}, ${describeGrid({ dayGrid: how.grid })}`, ...(whose ? [whose] : []), ...how.shareNotes];
  const cut = periods.filter((p) => p.partial).length;
  if (cut > 0) notes.push(`${plural(cut, how.bucket)} marked "part" cut to the window: their days outside it are not counted`);
  const partial = periods.filter((p) => p.found.more !== undefined).length;
  if (partial > 0) notes.push(`${plural(partial, how.bucket)} had more records than the first page (add --all); their figures are of that page only`);
  if (!fields) {
    notes.unshift('the records name no model and no amount to set side by side; see --json or --csv for every field');
    return `${style.paint.dim(await fitLines(notes.join('\n'), style.width))}\n`;
  }
  const exact = ctx.options.exact;
  const amount = (value: InstanceType<typeof Decimal>) => formatAmount(value, 'account', { exact });
  // Spend per model per period, exactly.
  const byPeriod = periods.map((p) => {
    const spend = new Map<string, InstanceType<typeof Decimal>>();
    for (const record of p.found.records) {
      const model = String(record[fields.model] ?? '');
      const value = record[fields.spend];
      if (!isDecimalString(value)) continue;
      spend.set(model, (spend.get(model) ?? new Decimal(0)).plus(value));
    }
    return spend;
  });
  const totals = new Map<string, InstanceType<typeof Decimal>>();
  for (const spend of byPeriod) for (const [model, value] of spend) totals.set(model, (totals.get(model) ?? new Decimal(0)).plus(value));
  const ranked = [...totals.entries()].sort((a, b) => b[1].comparedTo(a[1]) || (a[0] < b[0] ? -1 : 1)).map(([model]) => model);
  const sum = (spend: Map<string, InstanceType<typeof Decimal>>, models: string[]) => models.reduce((acc, m) => acc.plus(spend.get(m) ?? 0), new Decimal(0));

  // `shown` models as columns, every other one added into "other", so each row adds up to its total.
  const layout = (shown: string[], headerLength: number) => {
    const rest = ranked.slice(shown.length);
    const header = (model: string) => {
      const chars = [...model];
      return `${chars.length > headerLength ? `${chars.slice(0, Math.max(1, headerLength - 1)).join('')}\u2026` : model} (¥)`;
    };
    const columns = [
      { header: how.bucket },
      ...shown.map((model) => ({ header: header(model), align: 'decimal' as const })),
      ...(rest.length ? [{ header: `other ${rest.length} (¥)`, align: 'decimal' as const }] : []),
      { header: 'total (¥)', align: 'decimal' as const },
    ];
    const row = (first: string, spend: Map<string, InstanceType<typeof Decimal>>) => [
      first,
      ...shown.map((m) => amount(spend.get(m) ?? new Decimal(0))),
      ...(rest.length ? [amount(sum(spend, rest))] : []),
      amount(sum(spend, ranked)),
    ];
    return { columns, rows: periods.map((p, i) => row(p.partial ? `${label(p.start)} (part)` : label(p.start), byPeriod[i]!)), footer: row('total', totals) };
  };
  const widthOf = async (spec: ReturnType<typeof layout>) => displayWidth((await renderTable(spec, { ...style, width: Number.POSITIVE_INFINITY })).split('\n', 1)[0]!);
  const longest = Math.max(0, ...ranked.map((m) => [...m].length));
  let count = Math.min(how.top, ranked.length);
  let headerLength = longest;
  const fits = async () => (await widthOf(layout(ranked.slice(0, count), headerLength))) <= style.width;
  if (Number.isFinite(style.width) && !(await fits())) {
    // The models asked for with --top stay as columns, their names shortened (to 6 characters
    // at the least) to fit. Where even that is too wide, or none were asked for, the columns
    // that do not fit are added up in "other": a hidden model always counts in its row's total.
    if (how.topGiven) while (headerLength > 6 && !(await fits())) headerLength--;
    if (!(await fits())) {
      headerLength = longest;
      while (count > 0 && !(await fits())) count--;
    }
  }
  const table = await renderTable(layout(ranked.slice(0, count), headerLength), style);
  const folded = Math.min(how.top, ranked.length) - count;
  const columnsNote =
    ranked.length <= count ? plural(ranked.length, 'model')
    : folded > 0 ? `the top ${count} of ${ranked.length} as columns (${count} fit in ${style.width} columns; the other ${ranked.length - count} are added up in "other"; --wide shows ${Math.min(how.top, ranked.length)})`
    : `the top ${count} of ${ranked.length} as columns, the other ${ranked.length - count} added up in "other" (--top N for more)`;
  notes.unshift(`models by spend (${fields.spend}); ${columnsNote}`);
  return `${table}${style.paint.dim(await fitLines(notes.join('\n'), style.width))}\n`;
}
