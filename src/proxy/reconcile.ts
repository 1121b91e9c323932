// The reconcile loop: the gateway's per-call log, followed as it lands (the engine `logs --follow`
// uses: figures/call-log.ts), replaces each of the proxy's estimates with the charge the gateway
// booked for it. An entry is known as one of the proxy's calls by an identifier the answer carried
// (a request id header, the answer's id) or, where the log names none, by its model and token
// counts; the field names are the gateway's own, discovered in the entries, never assumed. A
// charge the log books that is none of the proxy's calls (another client of the key) counts
// against budgets (the key's whole spend), not against the proxy's own limits.
import type { Context } from '../context.js';
import { Interrupted, TallyError, isUnreachable } from '../errors.js';
import { Decimal } from '../domain/money.js';
import type { JsonObject } from '../domain/json.js';
import { type CallFields, callCost } from '../domain/calls.js';
import type { SpendLedger } from './ledger.js';

/** What the proxy saw of a call, to know its entry in the log again. */
export interface CallMarks {
  /** Identifiers the answer carried: its request id headers, its `id`. */
  ids: string[];
  model?: string;
  input?: number;
  output?: number;
  /** When the call was made (ms). */
  at: number;
}

/** How long an entry not (yet) known as the proxy's, or a call not (yet) booked, is kept to be matched. */
const KEEP_MS = 15 * 60 * 1000;

/** Is `value` one of the entry's values: its text as the gateway wrote it, or a whole number. */
function values(entry: JsonObject): { texts: Set<string>; wholes: Set<number> } {
  const texts = new Set<string>();
  const wholes = new Set<number>();
  for (const value of Object.values(entry)) {
    if (typeof value === 'string') {
      texts.add(value);
      if (/^\d{1,15}$/.test(value)) wholes.add(Number(value));
    } else if (typeof value === 'number' && Number.isSafeInteger(value)) wholes.add(value);
  }
  return { texts, wholes };
}

/** Does the entry name this call by an identifier the answer carried? */
export function sameId(entry: JsonObject, marks: CallMarks): boolean {
  if (marks.ids.length === 0) return false;
  const { texts } = values(entry);
  return marks.ids.some((id) => texts.has(id));
}

/** Does the entry hold this call's model and its token counts in and out? */
export function sameUsage(entry: JsonObject, marks: CallMarks): boolean {
  if (marks.model === undefined || marks.input === undefined || marks.output === undefined) return false;
  const { texts, wholes } = values(entry);
  return texts.has(marks.model) && wholes.has(marks.input) && wholes.has(marks.output);
}

export class Reconciler {
  readonly #ledger: SpendLedger;
  /** Ended calls the log has not booked yet, oldest first. */
  readonly #waiting = new Map<number, CallMarks>();
  /** Entries booked that are none of the ended calls (yet): a call whose answer is still streaming can land first. */
  #pool: { entry: JsonObject; charge: Decimal; seen: number }[] = [];
  /** Entries whose charge tally cannot read as money. */
  unreadable = 0;
  readonly #now: () => number;

  constructor(ledger: SpendLedger, now: () => number) {
    this.#ledger = ledger;
    this.#now = now;
  }

  /** A call ended: booked at once when its entry already landed, else waited for. */
  ended(id: number, marks: CallMarks): void {
    const at = this.#pool.findIndex((p) => sameId(p.entry, marks)) + 1 || this.#pool.findIndex((p) => sameUsage(p.entry, marks)) + 1;
    if (at > 0) {
      const [found] = this.#pool.splice(at - 1, 1);
      this.#ledger.other(found!.charge.neg());
      this.#ledger.book(id, found!.charge);
      return;
    }
    // Waited for from now (the reconciler's clock), as long as an entry can take to land.
    this.#waiting.set(id, { ...marks, at: this.#now() });
  }

  /** Entries that landed in the log (each once). */
  landed(entries: JsonObject[], fields: CallFields): void {
    const now = this.#now();
    for (const entry of entries) {
      const text = callCost(entry, fields);
      if (text === undefined) {
        this.unreadable++;
        continue;
      }
      const charge = new Decimal(text);
      const id = this.#find(entry, sameId) ?? this.#find(entry, sameUsage);
      if (id !== undefined) {
        this.#waiting.delete(id);
        this.#ledger.book(id, charge);
      } else {
        this.#pool.push({ entry, charge, seen: now });
        this.#ledger.other(charge);
      }
    }
    // What waited too long will not be matched any more: an entry stays counted as another's, a call at its estimate.
    this.#pool = this.#pool.filter((p) => now - p.seen < KEEP_MS);
    for (const [id, marks] of this.#waiting) {
      if (now - marks.at < KEEP_MS) break;
      this.#waiting.delete(id);
      this.#ledger.forget(id);
    }
  }

  /** Calls still waiting for their charge. */
  get waiting(): number {
    return this.#waiting.size;
  }

  #find(entry: JsonObject, same: (entry: JsonObject, marks: CallMarks) => boolean): number | undefined {
    for (const [id, marks] of this.#waiting) if (same(entry, marks)) return id;
    return undefined;
  }
}

/**
 * Follows the key's log from `since` (Unix seconds) until `stop` aborts, handing each entry to the
 * reconciler (while `needed`: calls wait for their charge, or a budget counts the key's others); a failure is said once and retried later and later; a log the gateway does not keep
 * (or refuses) ends the loop, said: the figures stay estimates.
 */
export async function reconcileLoop(ctx: Context, reconciler: Reconciler, since: number, stop: AbortSignal, say: (text: string) => void, needed: () => boolean = () => true): Promise<void> {
  const [{ CallFollower }, { backoffSeconds, pollSeconds, DEFAULT_FOLLOW_SECONDS }] = await Promise.all([import('../figures/call-log.js'), import('../loops/follow.js')]);
  const follower = new CallFollower(since);
  let failures = 0;
  while (!stop.aborted) {
    let wait: number;
    // Nothing to book and nothing else counted: the gateway is not asked.
    if (!needed()) {
      await ctx.sleep(DEFAULT_FOLLOW_SECONDS * 1000, stop).catch(() => undefined);
      continue;
    }
    try {
      ctx.renewDeadline();
      const landed = await follower.poll(ctx);
      reconciler.landed(landed.calls, landed.fields);
      if (landed.cut) throw landed.cut;
      failures = 0;
      wait = pollSeconds(DEFAULT_FOLLOW_SECONDS, (await ctx.client()).rateLimit, landed.requests);
    } catch (error) {
      if (error instanceof Interrupted || stop.aborted) return;
      const { errorText } = await import('../output/error-text.js');
      const why = errorText(error, ctx.secrets).message;
      // A log the gateway does not keep, or refuses to this key, will not come by asking again.
      if (error instanceof TallyError && !isUnreachable(error)) {
        say(`the per-call log cannot be read (${why}): what went through stays estimated from each answer's usage`);
        return;
      }
      failures++;
      wait = backoffSeconds(DEFAULT_FOLLOW_SECONDS, failures);
      if (failures === 1) say(`the per-call log could not be read (${why}); trying again in ${wait}s, estimates stand meanwhile`);
    }
    await ctx.sleep(wait * 1000, stop).catch(() => undefined);
  }
}
