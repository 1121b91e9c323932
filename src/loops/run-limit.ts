// tally run's watch while its command runs: the spend read every --poll seconds (sooner when the
// firewall refused a call), within the gateway's rate limit; a warning once past --warn-spend;
// past --max-spend (or a refused call) the command stopped, SIGTERM then SIGKILL after --grace;
// a reading that fails waited out with backoff (or, --fail-closed, the command stopped unwatched).
// Then, the command ended, the run's last calls read until the gateway's figures settle. What it
// saw is handed back for the end's summary (commands/run.ts).
import type { Context } from '../context.js';
import type { Decimal } from '../domain/money.js';
import { TallyError } from '../errors.js';
import type { RunReading, RunSpendWatch } from '../figures/run-watch.js';
import { type RunLimits, type RunSeen, callFacts, crossingCalls, lateText, readingText, settlingText, stopText, unreadText, unsettledText, warnText } from '../output/run.js';
import type { Supervised } from '../run/supervise.js';
import { backoffSeconds, pollSeconds } from './follow.js';
import { bookingLag, settleSpend } from './settle.js';

/** What the watch needs of the run: its limits, its command, the firewall if one runs, and how to alert. */
export interface RunWatchSetup {
  limits: RunLimits;
  max: Decimal;
  warn: Decimal | undefined;
  poll: number;
  grace: number;
  failClosed: boolean;
  child: Supervised;
  watch: RunSpendWatch;
  rateLimit: Parameters<typeof pollSeconds>[1];
  firewall?: { refused(): number; onRefused(listener: () => void): void; stopText(command: string, group: boolean, grace: number): string };
  /** Sends the run's alert (a warning, or the stop) to its destinations, with the last reading. */
  alert(level: 'warn' | 'fail', message: string, last: RunReading): Promise<void>;
}

/** Watches the run's spend until its command ends (or is stopped), as the file's head says. */
export async function watchRunSpend(ctx: Context, setup: RunWatchSetup): Promise<RunSeen> {
  const { max, poll, grace, child, watch, firewall, limits } = setup;
  const seen: RunSeen = { last: undefined, readings: 0, failed: 0, failures: 0, warned: false, outcome: 'finished', crossedAt: null, stoppedBy: null, crossing: [], lag: 0 };
  const stop = async () => ((await child.stop(grace * 1000, (ms) => ctx.sleep(ms).catch(() => undefined))) === 'killed' ? 'SIGKILL' : 'SIGTERM');

  const ended = new AbortController();
  void child.exited.then(() => ended.abort());
  // A call the firewall refused is read at once, not at the next poll.
  const refusedNow = new AbortController();
  firewall?.onRefused(() => refusedNow.abort());
  let wait = 0;
  while (child.running) {
    if (wait > 0) await ctx.sleep(wait * 1000, AbortSignal.any([ended.signal, refusedNow.signal])).catch(() => undefined);
    if (!child.running) break;
    let reading: RunReading;
    try {
      ctx.renewDeadline();
      reading = await watch.read(ctx);
    } catch (error) {
      if (error instanceof TallyError && (error.kind === 'usage' || error.kind === 'auth' || error.kind === 'config') && !setup.failClosed) {
        // A credential refused now will not be accepted later: said once, the command runs on unwatched.
        ctx.note(unreadText(ctx.secrets.scrubMessage(error.message), 0, false).replace(/; reading again in 0s$/, ''));
        break;
      }
      seen.failed++;
      seen.failures++;
      const message = ctx.secrets.scrubMessage((error as Error).message);
      wait = backoffSeconds(poll, seen.failures);
      ctx.note(unreadText(message, wait, setup.failClosed));
      if (setup.failClosed) {
        seen.outcome = 'stopped_unwatched';
        seen.stoppedBy = await stop();
        break;
      }
      continue;
    }
    if (seen.failures > 0) ctx.note('tally run: the spend can be read again');
    seen.failures = 0;
    seen.readings++;
    seen.last = reading;
    seen.lag = Math.max(seen.lag, bookingLag(reading, Math.floor(ctx.now() / 1000)));
    if (seen.readings === 1 && watch.passedOver) ctx.debug(`tally run: ${watch.passedOver}: following ${reading.source === 'key counter' ? "the key's daily counter" : "the account's lifetime spend"}`);
    ctx.debug(readingText(reading, ctx.zone));
    if (reading.spent.gt(max) || (firewall?.refused() ?? 0) > 0) {
      // Past both limits in one reading (the first one, or a burst): the warning is said and sent too, before the stop.
      await warnOnce(ctx, setup, seen, reading);
      seen.crossedAt = Math.floor(ctx.now() / 1000);
      seen.crossing = crossingCalls(reading, max).slice(0, 20).map((call) => callFacts(call, reading));
      const line = reading.spent.gt(max) ? stopText(reading, limits, ctx.zone, child.mode === 'group') : firewall!.stopText(limits.command, child.mode === 'group', grace);
      ctx.note(line);
      seen.outcome = 'stopped';
      const [how] = await Promise.all([stop(), setup.alert('fail', line, reading)]);
      seen.stoppedBy = how;
      break;
    }
    await warnOnce(ctx, setup, seen, reading);
    wait = pollSeconds(poll, setup.rateLimit, reading.requests);
  }
  return seen;
}

/**
 * After the command ended: the run's last calls (a stop's grace included) read until the gateway's
 * figures settle, for at most `settleSeconds`; what they earned is said and alerted as any other,
 * once (a warning, or the limit passed after the command ended on its own). Not where the spend
 * could not be read lately, nor after a stop unwatched.
 */
export async function settleRunEnd(ctx: Context, setup: RunWatchSetup, seen: RunSeen, settleSeconds: number): Promise<RunSeen & { settled: boolean }> {
  const { watch, limits, max, warn } = setup;
  if (seen.outcome === 'stopped_unwatched' || seen.failures > 0 || (!seen.last && seen.readings > 0)) return { ...seen, settled: true };
  const result = await settleSpend(
    {
      read: () => {
        ctx.renewDeadline();
        return watch.read(ctx).then((reading) => {
          ctx.debug(readingText(reading, ctx.zone));
          return reading;
        });
      },
      booked: () => watch.logBooked(ctx),
      sleep: (ms) => ctx.sleep(ms).catch(() => undefined),
      now: () => ctx.now(),
      waiting: (seconds) => ctx.note(settlingText(seconds)),
    },
    { settleSeconds, stepSeconds: pollSeconds(1, setup.rateLimit, seen.last?.requests ?? 1), lagSeconds: seen.lag, ...(seen.last ? { last: seen.last } : {}) },
  );
  const last = result.last ?? seen.last;
  const settled = { ...seen, readings: seen.readings + result.readings, failed: seen.failed + result.failed, last, settled: result.settled };
  if (!result.settled && last) ctx.note(unsettledText(settleSeconds));
  if (seen.outcome !== 'finished' || !last) return settled;
  if (last.spent.gt(max)) {
    settled.warned = warn !== undefined;
    await setup.alert('fail', lateText(last, limits), last);
  } else await warnOnce(ctx, setup, settled, last);
  return settled;
}

/** Past --warn-spend for the first time: said, and alerted. */
async function warnOnce(ctx: Context, setup: RunWatchSetup, seen: RunSeen, reading: RunReading): Promise<void> {
  if (!setup.warn || seen.warned || !reading.spent.gt(setup.warn)) return;
  seen.warned = true;
  const line = warnText(reading, setup.limits);
  ctx.note(line);
  await setup.alert('warn', line, reading);
}
