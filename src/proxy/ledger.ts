// The proxy's limit ledger: what its calls cost (estimated from their usage at the catalog's
// prices until the gateway's log books their charge), what is in flight (each call's worst case,
// reserved before it is forwarded), and the limits they are held to. A call whose worst case would
// take the spend, with what is in flight, past a limit is refused before it reaches the gateway,
// so the spend never passes a limit by more than a worst case that was underestimated. Pure: the
// server prices and asks, the reconciler (proxy/reconcile.ts) books.
import { Decimal } from '../domain/money.js';

export interface SpendLimit {
  /** How the limit is named to the client (`--max-spend ¥5.00`, `budget "monthly"`). */
  name: string;
  amount: Decimal;
  /** Spent against it before the proxy started (a budget's period so far; zero for --max-spend). */
  before: Decimal;
  /** How to raise it, in words. */
  raise: string;
  /**
   * What it counts: the proxy's calls (`proxy`), each session's calls apart (`session`:
   * --max-session-spend), or the key's whole spend (`budget`: the proxy's calls and the calls
   * the key's log books that did not go through it).
   */
  scope: 'proxy' | 'session' | 'budget';
}

export interface Refusal {
  limit: SpendLimit;
  /** Spent against it: before the proxy, the calls it counts, and what is in flight. */
  spent: Decimal;
  worst: Decimal;
  session: string | undefined;
}

interface Call {
  session: string | undefined;
  worst: Decimal;
  ended: boolean;
  /** From its usage at the catalog's prices; undefined while in flight or when it could not be priced. */
  estimate: Decimal | undefined;
  /** What the gateway's log booked for it. */
  charge: Decimal | undefined;
}

/** What one session (or the proxy as a whole) has spent and holds in flight. */
class Tally {
  spent = new Decimal(0);
  inFlight = new Decimal(0);
}

export class SpendLedger {
  readonly limits: readonly SpendLimit[];
  /** The proxy's calls: the charge booked, else the estimate from their usage, else their worst case. */
  readonly #all = new Tally();
  readonly #sessions = new Map<string, Tally>();
  /** The sum of the estimates from usage (calls that could be priced). */
  estimated = new Decimal(0);
  /** The sum of what the gateway's log booked for the proxy's calls. */
  booked = new Decimal(0);
  /** What the key's log booked for calls that did not go through the proxy (counted against budgets). */
  others = new Decimal(0);
  calls = 0;
  bookedCalls = 0;
  refused = 0;
  /** Answers whose cost could not be priced (counted at their worst case until booked). */
  unpriced = 0;
  readonly #calls = new Map<number, Call>();
  #next = 0;
  /** Told of each refusal (tally run --proxy stops its command at the first). */
  onRefused: ((refusal: Refusal) => void) | undefined;

  constructor(limits: SpendLimit[]) {
    this.limits = limits;
  }

  get spent(): Decimal {
    return this.#all.spent;
  }

  get inFlight(): Decimal {
    return this.#all.inFlight;
  }

  /** What a session spent through the proxy (its calls as booked or estimated). */
  sessionSpent(session: string | undefined): Decimal {
    return this.#session(session).spent;
  }

  /** Reserves a call's worst case, or refuses it when that would pass a limit. */
  reserve(worst: Decimal, session?: string): { id: number } | { refused: Refusal } {
    const own = this.#session(session);
    for (const limit of this.limits) {
      const counted = limit.scope === 'session' ? own : this.#all;
      const spent = limit.before.plus(counted.spent).plus(counted.inFlight).plus(limit.scope === 'budget' ? this.others : 0);
      if (spent.plus(worst).gt(limit.amount)) {
        this.refused++;
        const refusal = { limit, spent, worst, session };
        this.onRefused?.(refusal);
        return { refused: refusal };
      }
    }
    const id = ++this.#next;
    this.#calls.set(id, { session, worst, ended: false, estimate: undefined, charge: undefined });
    own.inFlight = own.inFlight.plus(worst);
    this.#all.inFlight = this.#all.inFlight.plus(worst);
    return { id };
  }

  /** A reserved call ended: its cost as estimated from its usage, or (undefined) its worst case, counted. */
  settle(id: number, cost: Decimal | undefined): void {
    const call = this.#calls.get(id);
    if (call === undefined || call.ended) return;
    call.ended = true;
    call.estimate = cost;
    const own = this.#session(call.session);
    own.inFlight = own.inFlight.minus(call.worst);
    this.#all.inFlight = this.#all.inFlight.minus(call.worst);
    this.calls++;
    if (cost === undefined) this.unpriced++;
    else this.estimated = this.estimated.plus(cost);
    // A charge the log booked before the answer ended (it can land first) already stands.
    this.#add(call, call.charge ?? cost ?? call.worst);
    if (call.charge !== undefined) this.#calls.delete(id);
  }

  /** The gateway's log booked a charge for one of the proxy's calls: it replaces the estimate. */
  book(id: number, charge: Decimal): void {
    const call = this.#calls.get(id);
    if (call === undefined || call.charge !== undefined) return;
    call.charge = charge;
    this.booked = this.booked.plus(charge);
    this.bookedCalls++;
    if (!call.ended) return;
    this.#add(call, charge.minus(call.estimate ?? call.worst));
    this.#calls.delete(id);
  }

  /** A charge in the key's log that is none of the proxy's calls (or, negative, one found to be after all). */
  other(charge: Decimal): void {
    this.others = this.others.plus(charge);
  }

  /** The ended calls the log has not booked yet. */
  unbooked(): number[] {
    return [...this.#calls].filter(([, c]) => c.ended && c.charge === undefined).map(([id]) => id);
  }

  /** Forgets a call that ended long ago and will not be booked any more (its estimate stays counted). */
  forget(id: number): void {
    const call = this.#calls.get(id);
    if (call?.ended) this.#calls.delete(id);
  }

  #add(call: Call, amount: Decimal): void {
    const own = this.#session(call.session);
    own.spent = own.spent.plus(amount);
    this.#all.spent = this.#all.spent.plus(amount);
  }

  #session(session: string | undefined): Tally {
    const name = session ?? '';
    let tally = this.#sessions.get(name);
    if (!tally) this.#sessions.set(name, (tally = new Tally()));
    return tally;
  }
}
