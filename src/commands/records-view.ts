// Record lists whose parameters and fields the service does not publish (`usage --by model`,
// `logs`): the window goes as start/end, every --param is passed through, columns are
// discovered, and continuation cursors are followed on the configured origin only.
import type { Context } from '../context.js';
import { ServiceError, TallyError, UsageError } from '../errors.js';
import { type RecordPage, fetchRecordPage } from '../api/usage.js';
import type { HttpClient } from '../api/http.js';
import { type JsonObject, type JsonValue, isJsonNumber, isJsonObject, jsonText, newRecord, numberText } from '../domain/json.js';
import { isDecimalString, plainDecimal } from '../domain/decimal-text.js';
import { type Continuation, type RecordColumn, type Scope, describeColumns, isTimeName, scopeText } from '../domain/records.js';
import type { UsageWindow } from '../domain/window.js';
import { type Zone, isCalendarSecond, spreadsheetDate } from '../domain/zone.js';
import type { AmountKind } from '../output/money.js';
import { emit, emitNdjson } from '../output/emit.js';
import { plural, windowJson } from '../output/window-text.js';

/** Pages `--all` follows before it stops; `--max-pages` changes it. */
export const DEFAULT_MAX_PAGES = 1000;

export function parseParams(params: string[] = []): Record<string, string> {
  const query: Record<string, string> = {};
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq <= 0) throw new UsageError(`--param "${param}" is not of the form key=value`);
    const key = param.slice(0, eq);
    if (key === 'start' || key === 'end') throw new UsageError(`--param ${key}=… would replace the window; use --since/--until`);
    query[key] = param.slice(eq + 1);
  }
  return query;
}

export interface PagedRecords {
  records: JsonObject[];
  /** The first page's other fields (kept in --json). */
  extra: JsonObject;
  pages: number;
  /** Set when the list stops before the window's end: how to get the rest, in words. */
  more: string | undefined;
  /** Whose records these are, when the gateway says (the first page's word). */
  scope: Scope | undefined;
  /**
   * --all that could not finish (the rate limit held, the gateway failed, time ran out): why, and
   * the cursor `--resume` continues from. What was fetched is kept.
   */
  stopped?: { error: TallyError; resume: string; page: number };
}

export interface PagingOptions {
  all: boolean;
  maxPages: number;
  /** Called with each page's records as it arrives (NDJSON streams them). */
  onPage?: (records: JsonObject[]) => void;
  /** What the progress line calls the records (`log entries`). */
  noun?: string;
  /** --resume: where an earlier --all stopped (a cursor it printed). */
  resume?: string;
  /** --all keeps what it fetched when it cannot finish (stopped), instead of failing with nothing. */
  keepPartial?: boolean;
}

/** A continuation as a cursor a person can pass back (--resume): opaque, checked when read. */
export function resumeCursor(next: Continuation): string {
  const plain = next.kind === 'url' ? { u: next.url } : next.kind === 'param' ? { n: next.name, v: next.value, ...(next.also ? { a: next.also } : {}) } : {};
  return Buffer.from(JSON.stringify(plain)).toString('base64url');
}

function readResume(text: string): { url?: string; query?: Record<string, string> } {
  const bad = () => new UsageError(`--resume "${text.slice(0, 40)}" is not a cursor tally printed (copy it from the message of the run that stopped)`);
  let plain: unknown;
  try {
    if (!/^[A-Za-z0-9_-]{1,4000}$/.test(text)) throw bad();
    plain = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (typeof plain !== 'object' || plain === null) throw bad();
  const p = plain as Record<string, unknown>;
  const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length < 2000;
  if (isText(p.u)) return { url: p.u };
  if (isText(p.n) && isText(p.v)) {
    const also = p.a === undefined ? {} : p.a;
    if (typeof also !== 'object' || also === null || !Object.values(also).every(isText)) throw bad();
    return { query: { ...(also as Record<string, string>), [p.n]: p.v } };
  }
  throw bad();
}

/**
 * Every page of a record list (or the first, without --all). A continuation is followed only to
 * the endpoint being paged (same origin, same path, no user name or password in it); a cursor
 * that repeats or leads anywhere else ends the run with exit 1, and so does reaching the page
 * limit or a `has_more` with no continuation tally recognises under --all (the rest would be
 * silently missing). Without --all, a list with more to come says so in `more`.
 */
export async function fetchAllPages(ctx: Context, client: HttpClient, path: string, query: Record<string, string>, paging: PagingOptions): Promise<PagedRecords> {
  const records: JsonObject[] = [];
  let first: RecordPage | undefined;
  let last: RecordPage | undefined;
  let url: string = path;
  let pageQuery = query;
  let pages = 0;
  let count = 0;
  let more: string | undefined;
  const endpoint = endpointUrl(client, path);
  const seen = new Set<string>();
  if (paging.resume !== undefined) {
    const resumed = readResume(paging.resume);
    if (resumed.url) url = followable(client, endpoint, resumed.url, '--resume').href;
    if (resumed.query) pageQuery = { ...query, ...resumed.query };
    if (resumed.url) pageQuery = {};
  }
  // The last page's other fields (its flags say what the document holds: has_more false once every
  // page was read); its continuation too while the rest was not fetched (a script can ask for the
  // next page with it), not once every page was.
  const finish = (stopped?: PagedRecords['stopped']): PagedRecords => {
    const extra = newRecord();
    if (isJsonObject(last?.body)) {
      for (const key of Object.keys(last.body)) {
        if (key !== last.recordsKey && (more !== undefined || stopped !== undefined || key !== last.next?.field)) extra[key] = last.body[key]!;
      }
    }
    if (stopped) more = `stopped before page ${stopped.page} (${stopped.error.message}); resume with --resume ${stopped.resume}`;
    return { records, extra, pages, more, scope: first?.scope, ...(stopped ? { stopped } : {}) };
  };
  let next: Continuation | undefined;
  try {
    for (;;) {
      let page: RecordPage;
      try {
        page = await fetchRecordPage(client, url, pageQuery, paging.all ? { patient: true } : {});
      } catch (error) {
        // A long export that cannot go on keeps what it has and says where to resume (Ctrl-C still ends it).
        if (!paging.all || !paging.keepPartial || pages === 0 || !next || !(error instanceof TallyError) || error.kind === 'interrupted' || next.kind === 'unrecognised') throw error;
        // What already reached stdout stays there: say how much, as for any failure after output.
        if (paging.onPage && count > 0) error.message += ` (${plural(count, 'record')} of ${plural(pages, 'page')} were written before this)`;
        const stopped = { error, resume: resumeCursor(next), page: pages + 1 };
        return finish(stopped);
      }
      pages++;
      count += page.records.length;
      first ??= page;
      last = page;
      if (paging.onPage) paging.onPage(page.records);
      else records.push(...page.records);
      next = page.next;
      if (!next) break;
      if (next.kind === 'unrecognised') {
        const said = `${client.host} says more records exist (${next.field}) but names no continuation tally recognises`;
        if (paging.all) throw new ServiceError(`${said}; stopped after ${plural(pages, 'page')}`);
        more = `${said}; narrow the window, or pass the service's own paging parameter with --param`;
        break;
      }
      const token = next.kind === 'url' ? next.url : next.value;
      if (!paging.all) {
        more = next.kind === 'url' ? 'add --all to follow every page' : `add --all, or --param ${next.name}=${token} for the next page`;
        break;
      }
      if (seen.has(token)) throw new ServiceError(`${client.host} returned the same continuation (${next.field}) twice; stopped after ${plural(pages, 'page')}`);
      seen.add(token);
      if (pages >= paging.maxPages) {
        throw new ServiceError(`stopped after ${plural(pages, 'page')} (--max-pages ${paging.maxPages}) with more to come; narrow the window or raise --max-pages`);
      }
      if (next.kind === 'url') {
        url = followable(client, endpoint, next.url, next.field).href;
        pageQuery = {};
      } else {
        pageQuery = { ...query, ...next.also, [next.name]: next.value };
      }
      ctx.progress(`${paging.noun ?? 'records'}: ${plural(count, 'record')} in ${plural(pages, 'page')}, fetching page ${pages + 1}…`);
    }
  } catch (error) {
    // What already reached stdout stays there: say how much, so a script knows what it holds.
    if (paging.onPage && count > 0 && error instanceof TallyError) error.message += ` (${plural(count, 'record')} of ${plural(pages, 'page')} were written before this)`;
    throw error;
  } finally {
    if (pages > 1) ctx.progress(undefined);
  }
  return finish();
}

/** The absolute URL of the endpoint being paged, as the HTTP client resolves a path. */
function endpointUrl(client: HttpClient, path: string): URL {
  const base = client.baseUrl.href.endsWith('/') ? client.baseUrl.href : `${client.baseUrl.href}/`;
  return new URL(path.replace(/^\//, ''), base);
}

/** A continuation URL, when it leads to the endpoint being paged and nowhere else. */
function followable(client: HttpClient, endpoint: URL, next: string, field: string): URL {
  let target: URL;
  try {
    target = new URL(next, endpoint);
  } catch {
    throw new ServiceError(`${client.host} sent a next page (${field}) that is not a URL; not followed`);
  }
  if (target.origin !== endpoint.origin) throw new ServiceError(`${client.host} pointed the next page (${field}) at another origin (${target.origin}); not followed`);
  if (target.username || target.password) throw new ServiceError(`${client.host} pointed the next page (${field}) at a URL with a user name or password; not followed`);
  if (target.pathname !== endpoint.pathname) {
    throw new ServiceError(`${client.host} pointed the next page (${field}) at another endpoint (${target.pathname}, not ${endpoint.pathname}); not followed`);
  }
  return target;
}

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

/** A record list as a JSON document: the first page's other fields, the window, the records. */
export function recordsJson(found: PagedRecords, window: UsageWindow, zone: Zone) {
  const document = newRecord();
  for (const key of Object.keys(found.extra)) document[key] = found.extra[key]!;
  Object.assign(document, windowJson(window, zone));
  document.records = found.records;
  if (found.pages > 1) document.pages = found.pages;
  // Whether the records are all the window holds (false: more pages were not fetched).
  document.complete = found.more === undefined;
  return document;
}

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
    const n = isJsonNumber(value) ? Number(numberText(value)) : Date.parse(String(value)) / 1000;
    const seconds = n > 1e11 ? n / 1000 : n;
    // A time no calendar date can name is shown as the service sent it, never as a broken date.
    if (!isCalendarSecond(seconds)) return jsonText(value);
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
  return `${table}${style.paint.dim(await fitLines(notes.join('\n'), style.width))}\n`;
}

/**
 * For NDJSON: one record per line, each page written as it arrives, and nothing kept from one
 * page to the next. V8 doubles its young generation (to 8, then 16 MB of semi-spaces) when a
 * scavenge finds many survivors, which a page in flight always has: memory then grew with the
 * length of the log (18 MB more at 200,000 entries than at 20,000) for no speed. Kept at its
 * first size, the peak stays flat (measured with npm run bench on Node 20); the flag is read by
 * V8 at each growth, so setting it now applies to this run. V8 versions that hold the factor
 * at 2 or more ignore the setting: memory then grows as before, and nothing else changes.
 */
export function ndjsonWriter(ctx: Context): (records: JsonObject[]) => void {
  process.getBuiltinModule('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
  return (records) => emitNdjson(ctx, records);
}
