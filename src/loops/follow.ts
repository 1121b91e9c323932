// `tally logs --follow`: polls the per-call log and prints each call once, as it lands, until
// Ctrl-C (exit 130, a one-line summary of what was followed). It polls no faster than --interval
// and than a quarter of the rate limit the gateway states; a failure (the rate limit, the network,
// the gateway) is said on stderr and retried later and later (up to a minute), never the end; a
// bad flag or a refused credential is. Each poll has the whole --timeout.
import type { Context } from '../context.js';
import { Interrupted, TallyError } from '../errors.js';
import { Decimal, derivedText } from '../domain/money.js';
import type { JsonObject } from '../domain/json.js';
import { type CallFields, callCost } from '../domain/calls.js';
import type { Scope } from '../domain/records.js';
import { CallFollower } from '../figures/call-log.js';
import { oneLine } from './watch.js';
import { emitNdjson } from '../output/emit.js';

export const DEFAULT_FOLLOW_SECONDS = 5;
const MAX_BACKOFF_SECONDS = 60;

export interface FollowRequest {
  /** Unix seconds the log is followed from (now, or --since). */
  since: number;
  /** The floor between polls, in seconds (--interval). */
  interval: number;
  query: Record<string, string>;
  /** One JSON record per line even on a terminal (--ndjson, --json). */
  ndjson?: boolean;
}

/**
 * The seconds between polls: the floor, and no faster than a quarter of the requests a minute the
 * gateway allows, counting every request of the last poll (a page each).
 */
export function pollSeconds(floor: number, rateLimit: number | undefined, requests = 1): number {
  return Math.max(floor, rateLimit ? Math.ceil((240 * Math.max(1, requests)) / rateLimit) : 0);
}

/** After `failures` failures in a row: twice as long each time, up to a minute. */
export function backoffSeconds(base: number, failures: number): number {
  return Math.min(MAX_BACKOFF_SECONDS, base * 2 ** Math.min(failures, 10));
}

export async function followLog(ctx: Context, request: FollowRequest): Promise<never> {
  const [view, { errorText }, { wallText }] = await Promise.all([import('../output/follow.js'), import('../output/error-text.js'), import('../output/window-text.js')]);
  const live = ctx.io.stdoutIsTTY && !request.ndjson;
  const writer = live ? view.liveWriter(ctx) : undefined;
  const follower = new CallFollower(request.since, request.query);
  const zone = ctx.zone;
  let columns: ReturnType<typeof view.followColumns> | undefined;
  let spent = new Decimal(0);
  let calls = 0;
  let unpriced = 0;
  let failures = 0;
  // Whose calls these are, as the gateway says (the first answer that says): the key's, or the account's.
  let scope: Scope | undefined;
  const whose = () => (scope === 'key' ? "this key's calls" : scope === 'account' ? "the whole account's calls" : undefined);
  const tally = () => {
    // The time followed, at least a second (a rate over an instant means nothing).
    const minutes = Math.max(1, ctx.now() / 1000 - request.since) / 60;
    return { calls, spent: spent.toFixed(), perMinute: derivedText(spent.div(minutes)), minutes, unpriced };
  };
  const count = (entries: JsonObject[], fields: CallFields) => {
    for (const entry of entries) {
      calls++;
      const cost = callCost(entry, fields);
      if (cost === undefined) unpriced++;
      else spent = spent.plus(cost);
    }
  };
  try {
    for (;;) {
      ctx.renewDeadline();
      let wait: number;
      try {
        const landed = await follower.poll(ctx);
        count(landed.calls, landed.fields);
        scope ??= landed.scope;
        if (writer) {
          const lines: string[] = [];
          if (!columns && landed.calls.length > 0) {
            // Following from more than a day back: the times show their day too.
            const withinADay = Math.floor(ctx.now() / 1000) - 86_400 < request.since;
            columns = view.followColumns(landed.calls, landed.fields, ctx.io.width, !withinADay);
            lines.push(await view.followHeader(columns));
          }
          for (const entry of landed.calls) lines.push(await view.followRow(columns!, entry, zone));
          writer.rows(lines);
        } else {
          // One record per line, each as the gateway sent it (every digit), written as it lands: what logs --ndjson prints.
          emitNdjson(ctx, landed.calls);
        }
        // A poll cut short (the rate limit held) printed what it read; it is said, and the next goes on from there.
        if (landed.cut) throw landed.cut;
        if (failures > 0) {
          writer?.done();
          ctx.note('reading the log again');
        }
        failures = 0;
        wait = pollSeconds(request.interval, (await ctx.client()).rateLimit, landed.requests);
      } catch (error) {
        if (error instanceof Interrupted || ctx.interrupt.aborted) throw error;
        // A flag or a credential the gateway refuses will not get better by asking again.
        if (error instanceof TallyError && (error.kind === 'usage' || error.kind === 'auth' || error.kind === 'config')) throw error;
        failures++;
        wait = backoffSeconds(pollSeconds(request.interval, undefined), failures);
        writer?.done();
        ctx.warn(`${errorText(error, ctx.secrets).message}; trying again in ${wait}s`);
      }
      // One line of the screen: on a narrow one the parts that matter least give way first.
      if (writer) writer.status(await oneLine([view.tallyText(tally()), `since ${wallText(request.since, zone)}`], [whose(), `every ${wait}s`, 'Ctrl-C to stop'].filter((p): p is string => p !== undefined), Math.max(10, ctx.io.width - 1)));
      await ctx.sleep(wait * 1000, ctx.interrupt).catch(() => undefined);
      if (ctx.interrupt.aborted) throw new Interrupted('interrupted');
    }
  } catch (error) {
    if (error instanceof Interrupted || ctx.interrupt.aborted) {
      writer?.done();
      const t = tally();
      throw new Interrupted(`stopped following the log: ${view.tallyText(t)} over ${view.spanText(t.minutes)} since ${wallText(request.since, zone)}${whose() ? ` (${whose()}, as the gateway states)` : ''}`);
    }
    writer?.done();
    throw error;
  }
}
