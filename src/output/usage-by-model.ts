// How spend per model is shown: the key's share of the account, the long CSV of periods, and
// the table of models as columns that fits the terminal (the rest added up in "other").
import type { Context } from '../context.js';
import { jsonText } from '../domain/json.js';
import { type Scope, describeColumns, scopeText } from '../domain/records.js';
import type { BucketSize } from '../domain/window.js';
import { fixedZone, spreadsheetDate } from '../domain/zone.js';
import type { DayGrid } from '../figures/day-grid.js';
import type { KeyShare, ModelPeriod, PeriodSpend } from '../figures/usage-by-model.js';
import type { PagedRecords } from '../figures/records.js';
import { escapeControl } from './escape.js';
import { describeWindow, plural } from './window-text.js';
import { bucketLabeller, describeGrid } from './usage.js';
import { formatAmount, groupDigits } from './money.js';
import { TOKEN_CLASSES } from '../domain/token-classes.js';

export async function shareNote(share: KeyShare | undefined): Promise<string[]> {
  if (!share) return [];
  const { formatAmount, formatShare } = await import('./money.js');
  return [`this key: ${formatAmount(share.key, 'account')} of the whole account's ${formatAmount(share.account, 'account')} in this window (${formatShare(share.key, share.account)})`];
}

/** Long form: one row per record, its period (the date it starts on the day grid) first. */
export function periodsCsv(periods: { start: number; found: PagedRecords }[], grid: DayGrid) {
  const zone = fixedZone(grid.offset);
  const header = describeColumns(periods.flatMap((p) => p.found.records)).map((c) => c.name);
  const rows = periods.flatMap((p) => p.found.records.map((record) => [spreadsheetDate(p.start, zone, false), ...header.map((name) => jsonText(record[name]))]));
  return { header: ['date', ...header], rows };
}

export async function renderPeriods(
  ctx: Context,
  periods: ModelPeriod[],
  how: { bucket: BucketSize; grid: DayGrid; window: { start: number; end: number }; top: number; topGiven: boolean; scope: Scope | undefined; shareNotes: string[]; spend: PeriodSpend | undefined },
): Promise<string> {
  const [{ renderTable }, { formatAmount }, { styleFor }, { fitLines }, { Decimal }, { displayWidth }] = await Promise.all([
    import('./table.js'),
    import('./money.js'),
    import('./style.js'),
    import('./wrap.js'),
    import('../domain/money.js'),
    import('./width.js'),
  ]);
  const style = await styleFor(ctx);
  const gridZone = fixedZone(how.grid.offset);
  const label = bucketLabeller({ bucket: how.bucket, labelZone: gridZone });
  const whose = scopeText(how.scope);
  const notes = [`${describeWindow(how.window, gridZone, plural(periods.length, how.bucket))}, ${describeGrid({ dayGrid: how.grid })}`, ...(whose ? [whose] : []), ...how.shareNotes];
  const cut = periods.filter((p) => p.partial).length;
  if (cut > 0) notes.push(`${plural(cut, how.bucket)} marked "part" cut to the window: their days outside it are not counted`);
  const partial = periods.filter((p) => p.found.more !== undefined).length;
  if (partial > 0) notes.push(`${plural(partial, how.bucket)} had more records than the first page (add --all); their figures are of that page only`);
  if (!how.spend) {
    notes.unshift('the records name no model and no amount to set side by side; see --json or --csv for every field');
    return `${style.paint.dim(await fitLines(notes.join('\n'), style.width))}\n`;
  }
  const exact = ctx.options.exact;
  const amount = (value: InstanceType<typeof Decimal>) => formatAmount(value, 'account', { exact });
  // Spend per model per period and in total, added up by the figure.
  const { byPeriod, unknownByPeriod, totals, unknownTotals, ranked, fields } = how.spend;
  // A model whose spend is unknown in a row shows as such, and so does any sum it is part of (never a zero, never a part as the whole).
  const sum = (spend: Map<string, InstanceType<typeof Decimal>>, unknown: Set<string>, models: string[]) => (models.some((m) => unknown.has(m)) ? undefined : models.reduce((acc, m) => acc.plus(spend.get(m) ?? 0), new Decimal(0)));
  const cell = (value: InstanceType<typeof Decimal> | undefined) => (value === undefined ? 'unknown' : amount(value));

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
    const row = (first: string, spend: Map<string, InstanceType<typeof Decimal>>, unknown: Set<string>) => [
      first,
      ...shown.map((m) => cell(unknown.has(m) ? undefined : (spend.get(m) ?? new Decimal(0)))),
      ...(rest.length ? [cell(sum(spend, unknown, rest))] : []),
      cell(sum(spend, unknown, ranked)),
    ];
    return { columns, rows: periods.map((p, i) => row(p.partial ? `${label(p.start)} (part)` : label(p.start), byPeriod[i]!, unknownByPeriod[i]!)), footer: row('total', totals, unknownTotals) };
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
  if (unknownTotals.size) notes.push(`unknown: a record of ${[...unknownTotals].slice(0, 3).map((m) => escapeControl(m)).join(', ')}${unknownTotals.size > 3 ? ` and ${unknownTotals.size - 3} more` : ''} states no amount tally can read (${escapeControl(fields.spend)}), so its spend there, and every sum with it, is not known: never counted as zero`);
  return `${table}${style.paint.dim(await fitLines(notes.join('\n'), style.width))}\n`;
}

/** What the token classes add below spend per model: which classes the gateway reports, and what the cache saved. */
export function classNotes(classes: import('../figures/token-classes.js').TokenClasses): string[] {
  const word = (c: string) => c.replace('_', ' ');
  const missing = TOKEN_CLASSES.filter((c) => !classes.reported.includes(c));
  const lines = [`token classes reported: ${classes.reported.map(word).join(', ')}${missing.length ? `; not reported: ${missing.map(word).join(', ')}` : ''}`];
  const read = classes.total.tokens.cache_read;
  if (read !== null) {
    const share = classes.total.share === null ? '' : ` (${classes.total.share.toDecimalPlaces(1, 4).toFixed(1)}% of input)`;
    const saved = classes.total.saved === null ? `what it saved cannot be computed (${classes.models.find((m) => m.why)?.why ?? 'a price is missing'})` : `saved ${formatAmount(classes.total.saved, 'account', { currency: 'CNY' })} at the catalog's prices (cache-read tokens × (input price − cache-read price))`;
    lines.push(`cache: ${groupDigits(read.toFixed())} tokens read from the prompt cache${share}; ${saved}`);
  }
  return lines;
}
