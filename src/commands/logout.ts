// tally logout: forget a profile's stored credential (its base URL and settings stay), or with
// --forget the whole profile; either way it says what it removed.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { maskSecret } from '../domain/secrets.js';
import { emit } from '../output/emit.js';
import { storedNamesHint } from '../domain/suggest.js';

export const flags = declareFlags({
  forget: { kind: 'switch', help: 'also remove the profile (its base URL and settings)' },
});

/** Whether the profile goes too (its base URL and settings), or only its credential. */
export interface LogoutRequest {
  forget: boolean;
}

export function parse(given: FlagValues<typeof flags>): LogoutRequest {
  return { forget: given.forget === true };
}

export async function run(request: LogoutRequest, ctx: Context): Promise<void> {
  if (ctx.options.demo) throw new UsageError('--demo never touches stored credentials; there is nothing to log out of');
  const { profile } = await ctx.profileChoice();
  const store = await ctx.store();
  const current = store.profile(profile);
  if (!current) {
    const names = store.profileNames();
    throw new UsageError(`there is no profile "${profile}"`, { hint: storedNamesHint(profile, names, 'Stored profiles', 'No profile is stored.') });
  }
  const forget = request.forget;
  const removed: string[] = [];
  if (current.api_key) removed.push(`its API key ${maskSecret(current.api_key)}`);
  if (current.device_token) removed.push(`its device token ${maskSecret(current.device_token.access_token)}${current.device_token.refresh_token ? ' and refresh token' : ''}`);
  if (forget) {
    if (current.base_url) removed.push(`its base URL ${current.base_url}`);
    const settings = Object.keys(current).filter((key) => !['api_key', 'device_token', 'base_url'].includes(key));
    if (settings.length) removed.push(`its settings ${settings.join(', ')}`);
  }
  await store.updateProfile(profile, (record) => {
    if (forget) return undefined;
    const { api_key: _key, device_token: _token, ...rest } = record;
    return rest;
  });
  const note = ctx.env.TALLY_API_KEY ? 'TALLY_API_KEY is still set in this environment and will keep being used.' : undefined;
  await emit(ctx, {
    json: { profile, removed, forgotten: forget },
    human: () => {
      const what = removed.length ? removed.join(', ') : 'nothing: it held no credential';
      const head = forget ? `Removed profile "${profile}": ${what}.` : `Logged out of profile "${profile}": removed ${what}.`;
      return `${head}\n${note ? `${note}\n` : ''}`;
    },
  });
}
