// The proxy's limit ledger: what its calls cost (estimated from their usage at the catalog's
// prices), what is in flight (each call's worst case, reserved before it is forwarded), and the
// limits they are held to. A call whose worst case would take the spend, with what is in flight,
// past a limit is refused before it reaches the gateway, so the spend never passes a limit by
// more than a worst case that was underestimated. Pure: the server prices and asks.
import { Decimal } from '../domain/money.js';

export interface SpendLimit {
  /** How the limit is named to the client (`--max-spend ¥5.00`, `budget "monthly"`). */
  name: string;
  amount: Decimal;
  /** Spent against it before the proxy started (a budget's period so far; zero for --max-spend). */
  before: Decimal;
  /** How to raise it, in words. */
  raise: string;
}

export interface Refusal {
  limit: SpendLimit;
  /** Spent against it: before the proxy, the proxy's calls, and what is in flight. */
  spent: Decimal;
  worst: Decimal;
}

export class SpendLedger {
  readonly limits: readonly SpendLimit[];
  /** The proxy's calls: estimated from their usage, or their worst case where it could not be read. */
  spent = new Decimal(0);
  inFlight = new Decimal(0);
  calls = 0;
  refused = 0;
  /** Answers whose cost could not be priced (counted at their worst case). */
  unpriced = 0;
  readonly #reserved = new Map<number, Decimal>();
  #next = 0;
  /** Told of each refusal (tally run --proxy stops its command at the first). */
  onRefused: ((refusal: Refusal) => void) | undefined;

  constructor(limits: SpendLimit[]) {
    this.limits = limits;
  }

  /** Reserves a call's worst case, or refuses it when that would pass a limit. */
  reserve(worst: Decimal): { id: number } | { refused: Refusal } {
    for (const limit of this.limits) {
      const spent = limit.before.plus(this.spent).plus(this.inFlight);
      if (spent.plus(worst).gt(limit.amount)) {
        this.refused++;
        const refusal = { limit, spent, worst };
        this.onRefused?.(refusal);
        return { refused: refusal };
      }
    }
    const id = ++this.#next;
    this.#reserved.set(id, worst);
    this.inFlight = this.inFlight.plus(worst);
    return { id };
  }

  /** A reserved call ended: its cost as estimated from its usage, or (undefined) its worst case, counted. */
  settle(id: number, cost: Decimal | undefined): void {
    const worst = this.#reserved.get(id);
    if (worst === undefined) return;
    this.#reserved.delete(id);
    this.inFlight = this.inFlight.minus(worst);
    this.calls++;
    if (cost === undefined) this.unpriced++;
    this.spent = this.spent.plus(cost ?? worst);
  }
}
