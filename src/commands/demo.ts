// tally demo: a short tour against an in-process sandbox gateway.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';

export function configure(command: Command): void {
  command.description('a short tour against the built-in sandbox');
}

/** A tour for people: the data formats are refused here. */
export function parse(_flags: Record<string, unknown>, line: CommandLine): Record<string, never> {
  if (line.output.json || line.output.csv) throw new UsageError('tally demo is a tour for people; for data, run a command with --demo (e.g. tally --demo usage --json)');
  return {};
}

export async function run(_request: Record<string, never>, ctx: Context): Promise<void> {
  ctx.useDemo();
  const client = await ctx.client();
  ctx.io.err(`Demo gateway running at ${client.baseUrl.origin} (a sandbox with seeded data; nothing real is touched).\n`);
  const [status, usage, models, forecast] = await Promise.all([ctx.command('status'), ctx.command('usage'), ctx.command('models'), ctx.command('forecast')]);
  const heading = (command: string, what: string) => ctx.io.out(`\n$ ${command}    # ${what}\n`);
  heading('tally status', 'everything at a glance');
  await status.run({}, ctx);
  heading('tally usage', 'the last 7 days, days without calls shown as zero');
  await usage.run({ bucket: 'day' }, ctx);
  heading('tally forecast', 'how long the balance lasts at this pace');
  await forecast.run({}, ctx);
  heading('tally models --prices', 'what this key may call, and what it costs');
  await models.run({ format: 'native', prices: true }, ctx);
  ctx.io.out('\nNext: `tally sandbox` serves this gateway for your own commands; `tally --help` lists everything.\n');
}
