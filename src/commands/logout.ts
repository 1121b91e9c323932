// tally logout: forget a profile's stored credential (its base URL stays).
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { emit } from '../output/emit.js';
import { profileName } from '../settings/resolve.js';

export function configure(command: Command): void {
  command.option('--forget', 'also remove the profile (its base URL and settings)');
}

export async function run(options: Record<string, unknown>, ctx: Context): Promise<void> {
  if (ctx.options.demo) throw new UsageError('--demo never touches stored credentials; there is nothing to log out of');
  const { profile } = profileName({ flags: ctx.options, env: ctx.env });
  const store = await ctx.store();
  const current = store.profile(profile);
  const had = Boolean(current?.api_key || current?.device_token);
  if (current) {
    await store.updateProfile(profile, (record) => {
      if (options.forget === true) return undefined;
      const { api_key: _key, device_token: _token, ...rest } = record;
      return rest;
    });
  }
  const note = ctx.env.TALLY_API_KEY ? '\nTALLY_API_KEY is still set in this environment and will keep being used.' : '';
  await emit(ctx, {
    json: { profile, removed: had, forgotten: options.forget === true && current !== undefined },
    human: () => (had ? `Removed the stored credential of profile "${profile}".${note}\n` : `Profile "${profile}" has no stored credential.${note}\n`),
  });
}
