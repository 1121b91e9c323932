// What a CI run spent: the counters now (lifetime spend, and the key's spend today with the day
// of the gateway's grid it belongs to), and the mark taken at the run's start to set them against.
import type { Context } from '../context.js';
import { fetchBalance } from '../api/balance.js';
import { bucketStart } from '../domain/window.js';
import { decimalText } from '../domain/money.js';
import { checkMarkName, markPath, readMark } from '../settings/marks.js';
import { knownDayGrid } from './usage-series.js';
import { timeSettings } from './day-grid.js';

/** What a mark needs: the counters now, and the grid day the key's counter belongs to. */
export async function readCounters(ctx: Context) {
  const client = await ctx.client();
  const [balance, grid] = await Promise.all([fetchBalance(client), client.credential?.kind === 'api-key' ? knownDayGrid(ctx, await timeSettings(ctx, {})) : undefined]);
  const now = Math.floor(ctx.now() / 1000);
  const used = balance.apiKey?.dailyUsed;
  return {
    client,
    balance,
    now,
    reading: {
      lifetimeSpend: decimalText(balance.lifetimeSpend),
      key: used !== undefined && grid ? { dailyCostUsed: decimalText(used), day: bucketStart(now, 'day', grid.offset) } : null,
    },
  };
}

/** `since the mark`: the state folder's mark NAME for this profile and gateway, or --mark-file. */
export async function markFor(ctx: Context, options: { mark?: string; markFile?: string }) {
  const [settings, client] = await Promise.all([ctx.settings(), ctx.client()]);
  const name = checkMarkName(options.mark ?? 'run');
  const secret = client.credential?.secret ?? '';
  const gateway = await ctx.gatewayIdentity();
  const path = options.markFile ?? markPath(await ctx.stateDir(), name, settings.profile, gateway, secret);
  const makeIt = options.markFile ? `tally mark --file ${options.markFile}` : `tally mark${name === 'run' ? '' : ` ${name}`}`;
  return readMark(path, { name, profile: settings.profile, baseUrl: gateway, secret, makeIt });
}
