// How record lists whose fields the service does not publish are shown: CSV with a date a
// spreadsheet reads, the JSON document, NDJSON as pages arrive, and a table whose columns are
// discovered and ranked to fit the terminal.
import type { Context } from '../context.js';
import { type JsonObject, type JsonValue, isJsonNumber, jsonText, numberText } from '../domain/json.js';
import { isDecimalString, plainDecimal } from '../domain/decimal-text.js';
import { type RecordColumn, type Scope, describeColumns, isTimeName, scopeText, timeSeconds } from '../domain/records.js';
import { type Zone, isCalendarSecond, spreadsheetDate } from '../domain/zone.js';
import type { PagedRecords } from '../figures/records.js';
import type { AmountKind } from './money.js';
import { emitNdjson } from './emit.js';
import { keepYoungGenerationSmall } from '../heap.js';
import { plural } from './window-text.js';

/** CSV has rows only: that a list stops before the window's end is said on stderr. */
export function recordsCsvOf(ctx: Context, found: PagedRecords, options: { timed?: boolean } = {}) {
  if (found.more) ctx.note(`only the first page is in the CSV; more records exist in this window (${found.more})`);
  return recordsCsv(found.records, ctx.zone, options);
}

/**
 * Records whose rows have times start with a `date` a spreadsheet reads (`2026-07-01 10:00`, in
 * the zone of the labels, from the first time field); then the fields as sent, then each time
 * field again in ISO 8601 UTC (`created_at_iso`). `timed`: rows of this list have times, so even
 * an empty one has its `date` header.
 */
export function recordsCsv(records: JsonObject[], zone: Zone, options: { timed?: boolean } = {}) {
  const columns = describeColumns(records);
  const header = columns.map((c) => c.name);
  const times = columns.filter((c) => c.kind === 'time').map((c) => c.name).filter((name) => !header.includes(`${name}_iso`));
  const seconds = (value: JsonValue | undefined) => {
    if (value === undefined || value === null) return undefined;
    const n = isJsonNumber(value) ? Number(numberText(value)) : Date.parse(String(value)) / 1000;
    const s = n > 1e11 ? n / 1000 : n;
    return isCalendarSecond(s) ? Math.floor(s) : undefined;
  };
  const iso = (value: JsonValue | undefined) => {
    const s = seconds(value);
    return s === undefined ? '' : new Date(s * 1000).toISOString().replace('.000Z', 'Z');
  };
  const dated = times.length > 0 || (records.length === 0 && options.timed === true);
  const date = (record: JsonObject) => {
    const s = times[0] === undefined ? undefined : seconds(record[times[0]]);
    return s === undefined ? '' : spreadsheetDate(s, zone, true);
  };
  return {
    header: [...(dated ? ['date'] : []), ...header, ...times.map((name) => `${name}_iso`)],
    rows: records.map((r) => [...(dated ? [date(r)] : []), ...header.map((name) => jsonText(r[name])), ...times.map((name) => iso(r[name]))]),
  };
}

export { recordsJson } from '../figures/records.js';

// How much a column matters when a narrow terminal must lose some (lower: kept longer).
function importance(column: RecordColumn): number {
  if (column.kind === 'time') return 2;
  if (column.kind === 'money') return 3;
  if (/model|name/i.test(column.name)) return 1;
  if (/token/i.test(column.name)) return 4;
  if (/status|type|kind/i.test(column.name)) return 5;
  return column.kind === 'number' ? 6 : 7;
}

const IDENTIFYING = /^(id|model|model_name|name|request_id|call_id|key)$/i;

/** Numbers that name or classify rather than measure (user_id, token_id, type, channel, status codes): never totalled. */
const NOT_A_QUANTITY = /(^|_)(id|ids|type|kind|channel|code|status|group|flag|level|mode|index|idx|seq|no|port|ip|version)$|[a-z]Id$/i;

export interface RecordTableOptions {
  /** What the money columns hold: the cost of one call (logs) or spend over the window (per model). */
  amounts: AmountKind;
  zone: Zone;
  /** Lines under the table (the window, the zone of times). */
  notes: string[];
  /** Set when the records stop before the window's end: how to get the rest. */
  more?: string;
  /** Whose records these are, when the gateway says. */
  scope?: Scope;
  /** Lines after the one that says whose records these are (how much of the account's figures they are). */
  afterScope?: string[];
}

/** The records as a table: money in yuan, counts grouped, times in the display zone, a totals row. */
export async function renderRecords(records: JsonObject[], ctx: Context, options: RecordTableOptions): Promise<string> {
  const [{ renderTable }, { formatAmount, formatCount }, { styleFor }, { fitLines }, { wallClock, dateText, two, isCalendarSecond }, { isAdditive }] = await Promise.all([
    import('../output/table.js'),
    import('../output/money.js'),
    import('../output/style.js'),
    import('../output/wrap.js'),
    import('../domain/zone.js'),
    import('../domain/totals.js'),
  ]);
  const style = await styleFor(ctx);
  const columns = describeColumns(records);
  const exact = ctx.options.exact;
  const identifying = Math.max(0, columns.findIndex((c) => IDENTIFYING.test(c.name)));
  const ranked = columns.map((c, i) => ({ i, rank: i === identifying ? -1 : importance(c) })).sort((a, b) => a.rank - b.rank || a.i - b.i);
  const dropOrder = new Map(ranked.map((r, order) => [r.i, r.rank < 0 ? 0 : order]));
  const time = (value: JsonValue): string => {
    const seconds = timeSeconds(value);
    // A time no calendar date can name is shown as the service sent it, never as a broken date.
    if (seconds === undefined || !isCalendarSecond(seconds)) return jsonText(value);
    const c = wallClock(Math.floor(seconds), options.zone);
    return `${dateText(c)} ${two(c.hour)}:${two(c.minute)}:${two(c.second)}`;
  };
  const cell = (column: RecordColumn, value: JsonValue | undefined): string => {
    if (value === null || value === undefined) return '';
    if (column.kind === 'money' && isDecimalString(value)) return formatAmount(value, options.amounts, { exact });
    if (column.kind === 'time') return time(value);
    if (isJsonNumber(value)) return formatCount(numberText(value));
    return jsonText(value);
  };
  // Totals of the additive columns: money and counts, not times, ids or averages.
  const summed = columns.map((c) => (c.kind === 'money' || c.kind === 'number') && !IDENTIFYING.test(c.name) && !NOT_A_QUANTITY.test(c.name) && !isTimeName(c.name) && isAdditive(c.name));
  let footer: string[] | undefined;
  if (records.length > 0 && summed.some(Boolean)) {
    const { Decimal } = await import('../domain/money.js');
    footer = columns.map((c, i) => {
      if (!summed[i]) return '';
      let sum = new Decimal(0);
      for (const record of records) {
        const value = record[c.name];
        const text = isJsonNumber(value) ? plainDecimal(numberText(value)) : isDecimalString(value) ? value : undefined;
        if (text !== undefined) sum = sum.plus(text);
      }
      // Money: the exact total, rounded once, as an amount over the whole list.
      return c.kind === 'money' ? formatAmount(sum, 'account', { exact }) : formatCount(sum.toFixed());
    });
    const labelAt = summed[identifying] ? summed.indexOf(false) : identifying;
    // A list cut short adds up what it shows, and says so: never a total of the window.
    if (labelAt >= 0) footer[labelAt] = options.more === undefined ? 'total' : 'page total';
  }
  const table = await renderTable(
    {
      columns: columns.map((c, i) => ({
        header: c.kind === 'money' ? `${c.name} (¥)` : c.name,
        align: c.kind === 'money' || c.kind === 'number' ? ('decimal' as const) : ('left' as const),
        dropOrder: dropOrder.get(i) ?? 0,
      })),
      rows: records.map((r) => columns.map((c) => cell(c, r[c.name]))),
      footer,
    },
    style,
  );
  const count =
    options.more !== undefined
      ? `${plural(records.length, 'record')} shown: only the first page, more records exist in this window (${options.more}); the totals are of this page`
      : records.length === 0 ? 'no records in this window' : plural(records.length, 'record');
  const scope = scopeText(options.scope);
  const notes = [count, ...options.notes, ...(scope ? [scope] : []), ...(options.afterScope ?? [])];
  // No records: no empty table before saying so (its blank lines read as output lost).
  return `${records.length === 0 && table.trim() === '' ? '' : table}${style.paint.dim(await fitLines(notes.join('\n'), style.width))}\n`;
}

/**
 * For NDJSON: one record per line, each page written as it arrives, and nothing kept from one
 * page to the next. V8 doubles its young generation (to 8, then 16 MB of semi-spaces) when a
 * scavenge finds many survivors, which a page in flight always has: memory then grew with the
 * length of the log (18 MB more at 200,000 entries than at 20,000) for no speed. Kept at its
 * first size from the first page on (src/heap.ts: by then the request's modules are loaded),
 * the peak stays flat; end() gives V8 its own growth back once the export is over, before the
 * run ends (a code cache made while the setting is changed is one the next run refuses).
 */
export function ndjsonWriter(ctx: Context): { write: (records: JsonObject[]) => void; end: () => void } {
  let endSmall: (() => void) | undefined;
  return {
    write: (records) => {
      endSmall ??= keepYoungGenerationSmall();
      emitNdjson(ctx, records);
    },
    end: () => endSmall?.(),
  };
}
