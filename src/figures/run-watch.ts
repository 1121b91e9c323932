// What a run (`tally run`) has spent since it began, read again and again while its command
// runs: from the per-call log as calls land, where the gateway has one whose scope is the one
// asked for (each call once, the follower's rule), else from the spend counters (the key's daily
// counter, followed across the gateway's days; the account's lifetime spend). The start is a mark
// taken before the command starts; a gateway that cannot be read then is read from when it can.
import type { Context } from '../context.js';
import { ServiceError, TallyError, UsageError } from '../errors.js';
import { Decimal } from '../domain/money.js';
import type { JsonObject } from '../domain/json.js';
import { type CallFields, callCost } from '../domain/calls.js';
import { type KeyCounterTrack, type SpendReading, followKeyTrack, startKeyTrack, trackedSpend } from '../domain/run-spend.js';
import { CallFollower } from './call-log.js';
import { readCounters } from './run-spend.js';

export type RunScope = 'key' | 'account';
export type RunSource = 'log' | 'key counter' | 'account counter';

/** The counters at the start, and when it was. */
export interface RunStart {
  /** Unix seconds. */
  at: number;
  scope: RunScope;
  currency: string | undefined;
  /** The counters then; undefined when the gateway could not be read at the start. */
  counters: SpendReading | undefined;
}

/** A call that landed, with what it cost (undefined: no cost tally can read). */
export interface LandedCall {
  entry: JsonObject;
  cost: string | undefined;
}

export interface RunReading {
  /** What the run's calls were charged: refunds and negative charges never lower it (they are `refunded`). */
  spent: Decimal;
  /** Refunds and negative charges in the log since the start (shown apart; zero where there are none or no log). */
  refunded: Decimal;
  /** The log's own sum, where the key's counter (charged as a call ends) is ahead of it and so gives `spent`. */
  logged?: Decimal;
  source: RunSource;
  /** Calls counted from the log (the log source only), and those without a readable cost. */
  calls?: number;
  unpriced?: number;
  /** The calls this reading added (the log source only), oldest first, and the fields that name their time and cost. */
  landed: LandedCall[];
  fields?: CallFields;
  /** Whether the spend may be more than read: counted from a later start, or a day of the key's counter ended unseen. */
  floor: boolean;
  /** When the counting began (Unix seconds): the start, or the first reading the gateway answered. */
  countedFrom: number;
  /** Requests this reading made (the pace counts them). */
  requests: number;
  currency: string | undefined;
}

/** The counters at the start of the run, for this scope; a credential that has no key counter cannot follow a key's spend. */
export async function startRun(ctx: Context, scope: RunScope): Promise<RunStart> {
  const client = await ctx.client();
  if (scope === 'key' && client.credential?.kind !== 'api-key') {
    throw new UsageError("--scope key follows an API key's own spend; this profile holds a device token, which has no key of its own: use --scope account");
  }
  const { balance, reading } = await readCounters(ctx);
  const offset = client.clockOffsetMs ?? 0;
  if (Math.abs(offset) >= MAX_CLOCK_OFFSET_MS) ctx.note(`tally run: the gateway's clock is ${(Math.abs(offset) / 3_600_000).toFixed(1)} hours ${offset > 0 ? 'ahead of' : 'behind'} this machine's (its Date header): no clock a gateway keeps, so its log is read on this machine's clock`);
  return { at: Math.floor(gatewayNow(ctx, client) / 1000), scope, currency: balance.currency, counters: reading };
}

/**
 * The gateway's time now (ms): the calls in its log carry its clock, so a run's start and each
 * reading's end are on that clock; a gateway whose clock is off by seconds (its Date header says
 * by how much) would otherwise hide the calls of a run until this machine's clock caught up.
 */
function gatewayNow(ctx: Context, client: { clockOffsetMs: number | undefined }): number {
  const offset = client.clockOffsetMs ?? 0;
  // A Date an hour or more away is no clock a gateway keeps: followed, it would count calls from before the run.
  return ctx.now() + (Math.abs(offset) < MAX_CLOCK_OFFSET_MS ? offset : 0);
}

const MAX_CLOCK_OFFSET_MS = 3_600_000;

/** The start when the gateway could not be read: the log still counts from then, the counters from their first reading. */
export function unreadStart(ctx: Context, scope: RunScope): RunStart {
  return { at: Math.floor(ctx.now() / 1000), scope, currency: undefined, counters: undefined };
}

/** Why the log cannot serve this run: the gateway has none (404, 405, 501), or it is another scope's. */
function logUnusable(error: unknown): boolean {
  return error instanceof ServiceError && error.status !== undefined && [404, 405, 410, 501].includes(error.status);
}

export class RunSpendWatch {
  readonly #start: RunStart;
  #source: RunSource | undefined;
  #follower: CallFollower | undefined;
  #logSpent = new Decimal(0);
  #refunded = new Decimal(0);
  #calls = 0;
  #unpriced = 0;
  #fields: CallFields | undefined;
  /** The counters the counting starts from (the start's, else the first answered). */
  #base: { counters: SpendReading; at: number } | undefined;
  #track: KeyCounterTrack | undefined;
  #currency: string | undefined;
  /** Why the log was passed over, for --debug. */
  passedOver: string | undefined;

  constructor(start: RunStart) {
    this.#start = start;
    this.#currency = start.currency;
    if (start.counters) this.#base = { counters: start.counters, at: start.at };
    if (start.counters?.key) this.#track = startKeyTrack(start.counters.key);
  }

  get source(): RunSource | undefined {
    return this.#source;
  }

  /** The spend since the start, as the gateway says it now. Throws what the gateway answered when it cannot be read. */
  async read(ctx: Context): Promise<RunReading> {
    if (this.#source === undefined || this.#source === 'log') {
      try {
        const reading = await this.#readLog(ctx);
        // Calls whose cost cannot be read are not calls that cost nothing: the counters say instead.
        if (reading && !(this.#calls > 0 && this.#unpriced === this.#calls)) return reading;
        if (reading) this.passedOver = 'the per-call log holds no amount tally can read as money';
      } catch (error) {
        if (this.#source === 'log' || !logUnusable(error)) throw error;
        this.passedOver = `the gateway has no per-call log (${(error as TallyError).message})`;
      }
      this.#follower = undefined;
      this.#source = this.#start.scope === 'key' ? 'key counter' : 'account counter';
    }
    return this.#readCounters(ctx);
  }

  async #readLog(ctx: Context): Promise<RunReading | undefined> {
    const client = await ctx.client();
    this.#follower ??= new CallFollower(this.#start.at, {}, () => gatewayNow(ctx, client));
    // The key's counter beside the log: charged as a call ends, it is ahead of a log that books
    // calls late, and a stop goes by whichever says more (the log still names the calls).
    const counting = this.#start.scope === 'key' && this.#start.counters?.key ? readCounters(ctx).catch(() => undefined) : undefined;
    const landed = await this.#follower.poll(ctx);
    if (this.#source === undefined) {
      // The log serves this run when it holds this scope's calls: the key's own (what a log says
      // when it says nothing of its scope), or the account's for --scope account.
      const logScope = landed.scope ?? 'key';
      if (logScope !== this.#start.scope) {
        this.passedOver = `the per-call log holds ${logScope === 'key' ? "this key's calls" : "the whole account's calls"}, not ${this.#start.scope === 'key' ? "this key's alone" : "every key's"}`;
        return undefined;
      }
      this.#source = 'log';
    }
    const calls = landed.calls.map((entry) => ({ entry, cost: callCost(entry, landed.fields) }));
    for (const call of calls) {
      this.#calls++;
      if (call.cost === undefined) this.#unpriced++;
      // A refund (a negative charge) is shown apart: a limit is measured against what was charged.
      else if (new Decimal(call.cost).isNegative()) this.#refunded = this.#refunded.plus(new Decimal(call.cost).neg());
      else this.#logSpent = this.#logSpent.plus(call.cost);
    }
    this.#fields = landed.fields;
    const counter = await counting;
    const track = counter?.reading.key ? followKeyTrack(startKeyTrack(this.#start.counters!.key!), counter.reading.key) : undefined;
    const counted = track && !track.floor ? trackedSpend(track) : undefined;
    const ahead = counted !== undefined && counted.gt(this.#logSpent) ? { spent: counted, logged: this.#logSpent } : { spent: this.#logSpent };
    // The log states no currency: the one the balance states (read at the start) labels it.
    return { ...ahead, refunded: this.#refunded, source: 'log', calls: this.#calls, unpriced: this.#unpriced, landed: calls, fields: this.#fields, floor: false, countedFrom: this.#start.at, requests: landed.requests + (counting ? 1 : 0), currency: this.#currency };
  }

  async #readCounters(ctx: Context): Promise<RunReading> {
    const { balance, reading, now } = await readCounters(ctx);
    this.#currency ??= balance.currency;
    const common = { landed: [], requests: 1, currency: this.#currency, refunded: new Decimal(0) };
    if (!this.#base) {
      // The gateway could not be read at the start: the counting begins now.
      this.#base = { counters: reading, at: now };
      if (reading.key) this.#track = startKeyTrack(reading.key);
    }
    const countedFrom = this.#base.at;
    const later = countedFrom > this.#start.at;
    if (this.#start.scope === 'account') {
      return { ...common, source: 'account counter', spent: new Decimal(reading.lifetimeSpend).minus(this.#base.counters.lifetimeSpend), floor: later, countedFrom };
    }
    if (!reading.key || !this.#track) throw new ServiceError("the gateway did not state this key's spend today (daily_cost_used): the key's spend cannot be followed; --scope account follows the whole account's");
    this.#track = followKeyTrack(this.#track, reading.key);
    return { ...common, source: 'key counter', spent: trackedSpend(this.#track), floor: later || this.#track.floor, countedFrom };
  }

  /**
   * Whether the per-call log has booked every call the key's daily counter has counted since the
   * start (the counter is charged as a call ends; the log often books it later): 'booked', 'behind',
   * or undefined where the two cannot be set side by side (no log followed, another scope, no key
   * counter at the start, a day of the counter ended since).
   */
  async logBooked(ctx: Context): Promise<'booked' | 'behind' | undefined> {
    if (this.#source !== 'log' || this.#start.scope !== 'key' || !this.#start.counters?.key) return undefined;
    const { reading } = await readCounters(ctx);
    if (!reading.key) return undefined;
    const track = followKeyTrack(startKeyTrack(this.#start.counters.key), reading.key);
    if (track.floor) return undefined;
    // The counter may round each charge: a ten-thousandth of a yuan (the audit's own tolerance) is the same spend.
    return trackedSpend(track).minus(this.#logSpent.minus(this.#refunded)).lte(COUNTER_TOLERANCE) ? 'booked' : 'behind';
  }
}

const COUNTER_TOLERANCE = new Decimal('0.0001');
