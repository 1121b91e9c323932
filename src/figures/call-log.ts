// The per-call log (GET /v1/open/logs) as figures: what the key spent since an instant (an agent
// session's start), and the calls that landed since the last look (tally logs --follow). The
// log's parameters are not published: tally asks with start and end and, since a gateway may
// ignore them, keeps only entries whose own time falls in the window when they state one.
import type { Context } from '../context.js';
import type { HttpClient } from '../api/http.js';
import { ServiceError } from '../errors.js';
import { Decimal } from '../domain/money.js';
import type { JsonObject } from '../domain/json.js';
import type { Scope } from '../domain/records.js';
import { type CallFields, callCost, callFields, callIdentity } from '../domain/calls.js';
import { fieldNamesOf, timeSeconds } from '../domain/records.js';
import { fetchAllPages } from './records.js';

export const LOGS_PATH = '/v1/open/logs';
/** A session's calls are a few pages; a log that goes on past this is said to be incomplete. */
const SESSION_MAX_PAGES = 20;

export interface CallsSince {
  start: number;
  end: number;
  spent: Decimal;
  calls: number;
  /** False when the log has more than tally read (pages left, or a page that failed): `spent` is then a floor. */
  complete: boolean;
  scope: Scope | undefined;
}

/** Entries of a window, each in it by its own time when it states one. */
export function entriesIn(records: JsonObject[], fields: CallFields, start: number, end: number): JsonObject[] {
  if (fields.time === undefined) return records;
  return records.filter((r) => {
    const t = timeSeconds(r[fields.time!]);
    return t === undefined || (t >= start && t < end);
  });
}

/** What the calling key spent from `start` (Unix seconds) until now, added up from its per-call log. */
export async function spendSince(ctx: Context, start: number, client?: HttpClient): Promise<CallsSince> {
  const end = Math.floor(ctx.now() / 1000) + 1;
  const found = await fetchAllPages(ctx, client ?? (await ctx.client()), LOGS_PATH, { start: String(Math.floor(start)), end: String(end) }, {
    all: true,
    maxPages: SESSION_MAX_PAGES,
    noun: 'log entries',
    keepPartial: true,
  });
  if (found.stopped && found.records.length === 0) throw found.stopped.error;
  const fields = callFields(found.records);
  const entries = entriesIn(found.records, fields, start, end);
  let spent = new Decimal(0);
  let unread = 0;
  for (const entry of entries) {
    const cost = callCost(entry, fields);
    if (cost === undefined) unread++;
    else spent = spent.plus(cost);
  }
  // A log whose entries hold no amount tally can read is not a log of calls that cost nothing.
  if (entries.length > 0 && unread === entries.length) {
    const names = fieldNamesOf(entries);
    throw new ServiceError(`the per-call log's entries hold no decimal amount (fields: ${names}); a cost sent as a JSON number is not read as money, never as zero`);
  }
  return { start, end, spent, calls: entries.length, complete: found.stopped === undefined && found.more === undefined && unread === 0, scope: found.scope };
}

/** How far back each poll looks again: an entry may land in the log a while after the time it states (a long call). */
const LOOKBACK_SECONDS = 600;
/** A poll reads at most this many pages: a gateway that ignores the window must not be read whole every few seconds. */
const FOLLOW_MAX_PAGES = 50;

export interface LandedCalls {
  /** Entries not seen before, oldest first when they state a time. */
  calls: JsonObject[];
  fields: CallFields;
  scope: Scope | undefined;
  /** The requests this poll made (a page each): what the pace counts. */
  requests: number;
  /** Why the poll was cut short (the rate limit held, a page failed): its calls are the pages read, and the next poll goes on from the page that failed. */
  cut?: Error;
}

/** A poll that could not read every page (the rate limit held, a page failed): where the next one goes on. */
interface UnfinishedPoll {
  resume: string;
  /** The window it asked for, asked again unchanged so the cursor stays valid. */
  query: Record<string, string>;
  now: number;
}

/**
 * The calls that land in the log, each once: every poll asks from a little before the last one
 * (entries can land late) and leaves out what it has seen. A gateway that ignores the window
 * sends its latest entries, which the same rule sorts out.
 */
export class CallFollower {
  readonly #seen = new Map<string, number>();
  #from: number;
  #fields: CallFields = {};
  readonly #query: Record<string, string>;
  #saidCapped = false;
  #unfinished: UnfinishedPoll | undefined;

  /** The gateway's time now (ms): this machine's, or moved by how far the gateway's clock is off (a run's stop must not wait for the clocks to agree). */
  readonly #clock: ((ctx: Context) => number) | undefined;

  constructor(since: number, query: Record<string, string> = {}, clock?: (ctx: Context) => number) {
    this.#from = since;
    this.#query = query;
    this.#clock = clock;
  }

  async poll(ctx: Context): Promise<LandedCalls> {
    // A poll the rate limit cut goes on from the page it stopped at, with what it had read: a log
    // that takes more pages than a minute of the limit allows is still read to its end.
    const unfinished = this.#unfinished;
    const now = unfinished?.now ?? Math.floor((this.#clock?.(ctx) ?? ctx.now()) / 1000);
    const end = now + 1;
    const query = unfinished?.query ?? { ...this.#query, start: String(this.#from), end: String(end) };
    const found = await fetchAllPages(ctx, await ctx.client(), LOGS_PATH, query, { all: true, maxPages: FOLLOW_MAX_PAGES, noun: 'log entries', keepPartial: true, ...(unfinished ? { resume: unfinished.resume } : {}) });
    const records = found.records;
    // A page that failed stops the poll: what it read is handed back (each call once) and the next
    // poll asks for the page that failed, in the same window; a log longer than a poll reads is
    // followed in what it reads, said once.
    const cut = found.stopped && !found.stopped.capped ? found.stopped : undefined;
    this.#unfinished = cut ? { resume: cut.resume, query, now } : undefined;
    if (cut) cut.error.message += ` (the ${records.length} log entries read so far are shown; the next poll goes on from there)`;
    if (found.stopped?.capped && !this.#saidCapped) {
      this.#saidCapped = true;
      ctx.warn(`the log holds more than ${FOLLOW_MAX_PAGES} pages for the last ${Math.max(1, Math.round((end - this.#from) / 60))} minutes (or the gateway does not narrow it to them): each poll reads the first ${FOLLOW_MAX_PAGES}`);
    }
    // Each batch adds what the earlier ones lacked (the first may have been empty).
    const seenFields = callFields(records);
    this.#fields = { ...seenFields, ...this.#fields };
    const fields = this.#fields;
    const landed: JsonObject[] = [];
    for (const entry of entriesIn(records, fields, Number(query.start), end)) {
      const identity = callIdentity(entry, fields);
      if (this.#seen.has(identity)) continue;
      this.#seen.set(identity, now);
      landed.push(entry);
    }
    if (fields.time !== undefined) {
      const at = (r: JsonObject) => timeSeconds(r[fields.time!]) ?? now;
      landed.sort((a, b) => at(a) - at(b));
      // The next poll looks back from here (once this one's window is read whole); what was seen before its start cannot come again.
      if (!cut) {
        this.#from = Math.max(this.#from, now - LOOKBACK_SECONDS);
        for (const [identity, seenAt] of this.#seen) if (seenAt < this.#from) this.#seen.delete(identity);
      }
    }
    return { calls: landed, fields, scope: found.scope, requests: found.pages, ...(cut ? { cut: cut.error } : {}) };
  }
}
