// tally status: one screen — balance and plan, today against the daily limit, the last 7 days
// as a sparkline, the week's top models, the runway. Three requests issued together: the
// balance, one usage request of day buckets (the week and the month so far), and the week's
// spend per model.
import type { Context } from '../context.js';
import { fetchBalance } from '../api/balance.js';
import type { CommandLine } from '../cli/command.js';
import { WATCH_FLAGS, watchFlag, watchOrRun } from '../loops/watch.js';
import { type FlagValues, declareFlags } from '../flags/declare.js';
import { deviceStatusJson, loadStatus, statusJson } from '../figures/status.js';
import { renderDeviceStatus, renderStatus } from '../output/status.js';

export { statusFleetRow as fleetRow } from '../output/status.js';

export const flags = declareFlags({
  utcOffset: { kind: 'value', value: '+HH:MM', help: "the gateway's day grid (default: inferred from usage)" },
  ...WATCH_FLAGS,
});

/** What `tally status` was asked: the day grid if named, once or every `watch` seconds. */
export interface StatusRequest {
  utcOffset: string | undefined;
  watch: number | undefined;
}

export function parse(given: FlagValues<typeof flags>, line: CommandLine): StatusRequest {
  return { utcOffset: given.utcOffset, watch: watchFlag(given.watch, line.output) };
}

export async function run(request: StatusRequest, ctx: Context): Promise<void> {
  const settings = await ctx.settings();
  if (settings.credential?.kind === 'device-token') return deviceStatus(ctx, request.watch);
  await watchOrRun(ctx, request.watch, 'tally status', async () => {
    const data = await loadStatus(ctx, { utcOffset: request.utcOffset });
    return {
      json: () => statusJson(data),
      human: () => renderStatus(data, ctx),
      note: data.week.cache === 'HIT' ? "usage from the gateway's cache" : undefined,
    };
  });
}

/** What a device token can see (the balance), and what needs an API key, instead of exit 3. */
async function deviceStatus(ctx: Context, watch: number | undefined): Promise<void> {
  const hint = 'usage, top models and the forecast need an API key (`tally login --with-token`, or TALLY_API_KEY): a device token sees the balance only';
  await watchOrRun(ctx, watch, 'tally status', async () => {
    const balance = await fetchBalance(await ctx.client());
    return {
      json: () => deviceStatusJson(balance),
      human: () => renderDeviceStatus(balance, hint, ctx),
    };
  });
}

