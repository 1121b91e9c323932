// tally mark [NAME]: the spend counters now, for `check --max-run-spend` at the end of a CI job:
// the account's lifetime_spend and, for an API key, the key's daily_cost_used with the day of
// the gateway's grid it belongs to. In the state folder, or --file PATH (a job's workspace, or
// an artifact passed between jobs).
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { fetchBalance } from '../api/balance.js';
import { bucketStart } from '../domain/window.js';
import { decimalText } from '../domain/money.js';
import { isoInZone } from '../domain/zone.js';
import { emit } from '../output/emit.js';
import { credentialId } from '../settings/cache-key.js';
import { writeReportFile } from '../settings/report-file.js';
import { MARK_VERSION, type Mark, checkMarkName, markOf, markPath, markText, writeMark } from '../settings/marks.js';
import { knownDayGrid } from './usage-series.js';
import { timeSettings } from './window-options.js';

export function configure(command: Command): void {
  command
    .argument('[name]', 'the mark (default "run")')
    .option('--file <path>', 'write the mark to this file instead of the state folder');
}

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

export async function run(raw: Record<string, unknown>, ctx: Context, args: string[] = []): Promise<void> {
  const name = checkMarkName(args[0] ?? 'run');
  const settings = await ctx.settings();
  const { client, balance, now, reading } = await readCounters(ctx);
  const secret = client.credential?.secret ?? '';
  const gateway = await ctx.gatewayIdentity();
  const mark: Mark = {
    version: MARK_VERSION,
    name,
    profile: settings.profile,
    base_url: gateway.href,
    credential_id: credentialId(secret),
    currency: balance.currency,
    at: now,
    at_iso: isoInZone(now, ctx.zone),
    ...markOf(reading),
  };
  const path = typeof raw.file === 'string' ? raw.file : markPath(await ctx.stateDir(), name, settings.profile, gateway, secret);
  // A file the user names follows the rule of every report file; the state folder's is tally's own.
  if (typeof raw.file === 'string') writeReportFile(path, markText(mark), { flag: '--file', mode: 0o600 });
  else writeMark(path, mark);
  await emit(ctx, {
    json: mark,
    human: () => `Marked "${name}" at ${mark.at_iso}: lifetime spend ${mark.lifetime_spend} ${mark.currency}${mark.key ? `, this key's spend today ${mark.key.daily_cost_used}` : ''}.\nSaved in ${path}; \`tally check --max-run-spend AMOUNT${name === 'run' ? '' : ` --mark ${name}`}\` gates what this run spends.\n`,
  });
}
