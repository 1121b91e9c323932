// Record lists whose parameters and fields the service does not publish (`usage --by model`,
// `logs`): the window goes as start/end, every --param is passed through, and continuation
// cursors are followed on the configured origin only. Their views are in output/records.ts.
import type { Context } from '../context.js';
import { ServiceError, TallyError, UsageError } from '../errors.js';
import { type RecordPage, fetchRecordPage } from '../api/usage.js';
import type { HttpClient } from '../api/http.js';
import { type JsonObject, isJsonObject, newRecord } from '../domain/json.js';
import { type Continuation, type Scope } from '../domain/records.js';
import { plural } from '../domain/words.js';
import { type UsageWindow, windowJson } from '../domain/window.js';
import type { Zone } from '../domain/zone.js';

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
  stopped?: { error: TallyError; resume: string; page: number; capped?: true };
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
        // Ctrl-C too: what was fetched is kept and the cursor printed; the run still ends as interrupted.
        if (!paging.all || !paging.keepPartial || pages === 0 || !next || !(error instanceof TallyError) || next.kind === 'unrecognised') throw error;
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
        const error = new ServiceError(`stopped after ${plural(pages, 'page')} (--max-pages ${paging.maxPages}) with more to come; narrow the window or raise --max-pages`);
        // The page cap is a way a long export stops, like the others: it keeps what it fetched and says where to resume.
        if (paging.keepPartial) {
          if (paging.onPage && count > 0) error.message += ` (${plural(count, 'record')} of ${plural(pages, 'page')} were written before this)`;
          return finish({ error, resume: resumeCursor(next), page: pages + 1, capped: true });
        }
        throw error;
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
