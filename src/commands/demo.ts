// tally demo: a short tour against an in-process sandbox gateway.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { fetchBalance } from '../api/balance.js';
import { renderBalance } from './balance.js';

export function configure(command: Command): void {
  command.description('a short tour against the built-in sandbox');
}

export async function run(_options: Record<string, unknown>, ctx: Context): Promise<void> {
  ctx.useDemo();
  const client = await ctx.client();
  const heading = (text: string) => `\n== ${text} ==\n`;
  ctx.io.err(`Demo gateway running at ${client.baseUrl.origin} (a sandbox with seeded data; nothing real is touched).\n`);
  const balance = await fetchBalance(client);
  ctx.io.out(heading('tally balance') + (await renderBalance(balance, ctx)));
  ctx.io.out('\nNext: `tally sandbox` serves this gateway for your own commands; `tally --help` lists everything.\n');
}
