// tally status: one screen — balance and plan, today against the daily limit, the last 7 days
// as a sparkline, the week's top models, the runway. Three requests issued together: the
// balance, one usage request of day buckets (the week and the month so far), and the week's
// spend per model.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { fetchBalance } from '../api/balance.js';
import { addWatchOption, watchOrRun } from '../loops/watch.js';
import { deviceStatusJson, loadStatus, statusJson } from '../figures/status.js';
import { renderDeviceStatus, renderStatus } from '../output/status.js';

export function configure(command: Command): void {
  command.option('--utc-offset <+HH:MM>', "the gateway's day grid (default: inferred from usage)");
  addWatchOption(command);
}

export async function run(raw: Record<string, unknown>, ctx: Context): Promise<void> {
  const options = raw as { utcOffset?: string };
  const settings = await ctx.settings();
  if (settings.credential?.kind === 'device-token') return deviceStatus(ctx, raw);
  await watchOrRun(ctx, raw, 'tally status', async () => {
    const data = await loadStatus(ctx, options);
    return {
      json: () => statusJson(data),
      human: () => renderStatus(data, ctx),
      note: data.week.cache === 'HIT' ? "usage from the gateway's cache" : undefined,
    };
  });
}

/** What a device token can see (the balance), and what needs an API key, instead of exit 3. */
async function deviceStatus(ctx: Context, raw: Record<string, unknown>): Promise<void> {
  const hint = 'usage, top models and the forecast need an API key (`tally login --with-token`, or TALLY_API_KEY): a device token sees the balance only';
  await watchOrRun(ctx, raw, 'tally status', async () => {
    const balance = await fetchBalance(await ctx.client());
    return {
      json: () => deviceStatusJson(balance),
      human: () => renderDeviceStatus(balance, hint, ctx),
    };
  });
}

