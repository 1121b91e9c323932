// tally auth switch NAME: make a stored profile the active one, used when neither --profile nor
// TALLY_PROFILE names one (as `gh auth switch` does). Nothing else of the profile changes.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';
import { emit } from '../output/emit.js';
import { storedNamesHint } from '../domain/suggest.js';

export function configure(command: Command): void {
  command.argument('<name>', 'a stored profile (tally auth status lists them)');
}

/** The profile to make the active one. */
export interface SwitchRequest {
  name: string;
}

export function parse(_flags: Record<string, unknown>, line: CommandLine): SwitchRequest {
  return { name: line.args[0] ?? '' };
}

export async function run({ name }: SwitchRequest, ctx: Context): Promise<void> {
  if (ctx.options.demo) throw new UsageError('--demo never touches stored settings; there is no profile to switch to');
  const store = await ctx.store();
  const record = store.profile(name);
  if (!record) {
    const names = store.profileNames();
    throw new UsageError(`there is no profile "${name}"`, { hint: storedNamesHint(name, names, 'Stored profiles', 'No profile is stored yet: `tally --profile NAME login` creates one.') });
  }
  await store.setActiveProfile(name);
  const overridden = ctx.env.TALLY_PROFILE ? `TALLY_PROFILE (${ctx.env.TALLY_PROFILE}) is set in this environment and still wins over it.` : undefined;
  await emit(ctx, {
    json: { active: name, base_url: record.base_url ?? null },
    human: () => `Switched to profile "${name}"${record.base_url ? ` (${record.base_url})` : ''}: used when neither --profile nor TALLY_PROFILE names one.\n${overridden ? `${overridden}\n` : ''}`,
  });
}
