// After the last of a run's processes ended: the gateway is read until its figures settle, so
// the run's spend counts every call its processes made, those of a stop's grace included (a
// per-call log books a call seconds to minutes after it ended). Settled: the log has booked what
// the key's daily counter counted (the counter is charged as a call ends), or, where the two
// cannot be set side by side, the figure stayed the same for longer than the log was seen to lag,
// and over two readings at least. Never longer than `settleSeconds`; what was read then is the
// figure, said to be possibly short.
import { timeSeconds } from '../domain/records.js';
import type { RunReading } from '../figures/run-watch.js';

export interface SettleSteps {
  /** A reading of the run's spend (throws what the gateway answered). */
  read(): Promise<RunReading>;
  /** Whether the log has booked what the counters counted (undefined: cannot be told). */
  booked(): Promise<'booked' | 'behind' | undefined>;
  sleep(ms: number): Promise<void>;
  /** ms since the epoch. */
  now(): number;
  /** Said once, when the figures are not settled at the first reading. */
  waiting(seconds: number): void;
}

export interface Settled {
  last: RunReading | undefined;
  /** Whether the figures settled within the time given. */
  settled: boolean;
  readings: number;
  failed: number;
}

/**
 * Reads until settled or `settleSeconds` have passed, a reading every `stepSeconds`. `lagSeconds`
 * is the longest the log was seen to take to book a call during the run (0 when unknown).
 */
export async function settleSpend(steps: SettleSteps, options: { settleSeconds: number; stepSeconds: number; lagSeconds: number; last?: RunReading }): Promise<Settled> {
  const until = steps.now() + options.settleSeconds * 1000;
  const quietMs = Math.max(options.lagSeconds + options.stepSeconds, options.stepSeconds) * 1000;
  let last = options.last;
  let readings = 0;
  let failed = 0;
  let unchangedSince: number | undefined;
  let said = false;
  for (;;) {
    let reading: RunReading | undefined;
    try {
      reading = await steps.read();
      readings++;
    } catch {
      failed++;
    }
    if (reading) {
      const same = last !== undefined && sameSpend(last, reading);
      if (!same || unchangedSince === undefined) unchangedSince = steps.now();
      last = reading;
      let booked: 'booked' | 'behind' | undefined;
      try {
        booked = await steps.booked();
      } catch {
        booked = undefined;
      }
      if (booked === 'booked') return { last, settled: true, readings, failed };
      if (booked === undefined && readings >= 2 && steps.now() - unchangedSince >= quietMs) return { last, settled: true, readings, failed };
    }
    const left = until - steps.now();
    if (left <= 0) return { last, settled: false, readings, failed };
    if (!said) {
      said = true;
      steps.waiting(Math.ceil(left / 1000));
    }
    await steps.sleep(Math.min(options.stepSeconds * 1000, left));
  }
}

function sameSpend(a: RunReading, b: RunReading): boolean {
  return a.spent.eq(b.spent) && (a.calls ?? 0) === (b.calls ?? 0) && a.refunded.eq(b.refunded);
}

/** The longest a call of `reading` took to appear in the log (seconds), from its time field; 0 where the log names no time. */
export function bookingLag(reading: RunReading, nowSeconds: number): number {
  const field = reading.fields?.time;
  if (!field) return 0;
  let lag = 0;
  for (const call of reading.landed) {
    const at = timeSeconds(call.entry[field]);
    if (at !== undefined) lag = Math.max(lag, nowSeconds - at);
  }
  return Math.max(0, Math.min(Math.ceil(lag), 3600));
}
