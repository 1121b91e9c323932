// tally auth status: every stored profile (the active one marked), the base URL and credential
// each would use and where they come from, and whether the gateway accepts the credential (one
// balance request per profile; --offline skips it). Exit 0 when the active credential is
// accepted, 3 when it is rejected or missing, 1 when the gateway cannot be reached.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { AuthError, ConfigError, TallyError } from '../errors.js';
import { fetchBalance } from '../api/balance.js';
import { maskSecret } from '../domain/secrets.js';
import { emit } from '../output/emit.js';
import { type ProfileStatus, SOURCE, describeSource, renderStatuses } from '../output/auth-status.js';
import { type ResolvedSettings, resolveSettings } from '../settings/resolve.js';

export const flags = declareFlags({
  offline: { kind: 'switch', help: 'do not ask the gateway whether the credential is accepted' },
});

/** Whether to ask the gateway if each credential is accepted. */
export interface AuthStatusRequest {
  offline: boolean;
}

export function parse(given: FlagValues<typeof flags>): AuthStatusRequest {
  return { offline: given.offline === true };
}

export async function run({ offline }: AuthStatusRequest, ctx: Context): Promise<void> {
  const active = await ctx.settings();
  let names: string[] = [];
  try {
    names = (await ctx.store()).profileNames();
  } catch (error) {
    // The environment still works when config.json cannot be read: say so, and go on.
    if (!(error instanceof ConfigError) || active.credential === undefined) throw error;
    ctx.warn(`${error.message}; only the profile from the environment is shown`);
  }
  const others = names.filter((name) => name !== active.profile);
  const settings: ResolvedSettings[] = [active];
  for (const name of others) settings.push(await resolveSettings({ flags: { ...ctx.options, profile: name }, env: ctx.env, openStore: () => ctx.store() }));
  const checked = await Promise.all(settings.map((s, i) => status(ctx, s, i === 0, offline)));
  const statuses = checked.map((c) => c.status);
  const first = statuses[0]!;
  await emit(ctx, {
    json: {
      profile: first.profile,
      profile_source: SOURCE[active.profileSource],
      ...withoutName(first),
      profiles: statuses,
    },
    human: () => renderStatuses(statuses, active, ctx),
  });
  switch (first.check.state) {
    case 'no-credential': throw new AuthError(`not logged in (profile "${active.profile}")`);
    case 'rejected': throw new AuthError(`the credential of profile "${active.profile}" was rejected: ${first.check.message}`);
    case 'unreachable': throw checked[0]!.error!;
    default:
  }
}

function withoutName(status: ProfileStatus) {
  const { profile: _profile, active: _active, ...rest } = status;
  return rest;
}

async function status(ctx: Context, settings: ResolvedSettings, active: boolean, offline: boolean): Promise<{ status: ProfileStatus; error?: TallyError }> {
  const credential = settings.credential;
  const expires = credential?.device?.expires_at;
  const base: ProfileStatus = {
    profile: settings.profile,
    active,
    base_url: settings.baseUrl?.href.replace(/\/$/, '') ?? null,
    base_url_source: settings.baseUrlSource ? describeSource(settings.baseUrlSource, 'TALLY_BASE_URL') : null,
    credential: credential?.kind ?? null,
    credential_source: credential ? describeSource(credential.source, 'TALLY_API_KEY') : null,
    key: credential ? maskSecret(credential.secret) : null,
    ...(credential?.kind === 'device-token'
      ? { expires_at: expires ?? null, expired: expires !== undefined && Date.parse(expires) <= ctx.now(), refreshable: Boolean(credential.device?.refresh_token) }
      : {}),
    check: { state: 'skipped', message: 'not checked (--offline)' },
  };
  if (!credential) return { status: { ...base, check: { state: 'no-credential', message: 'no credential: run `tally login` or set TALLY_API_KEY' } } };
  if (!settings.baseUrl) return { status: { ...base, check: { state: 'no-base-url', message: 'no base URL: run `tally login --base-url URL` or set TALLY_BASE_URL' } } };
  if (offline) return { status: base };
  try {
    // The active profile's client renews an expired device token first, as any command would.
    const client = active ? await ctx.client() : await ctx.clientFor(`auth-status:${settings.profile}`, settings.baseUrl, credential);
    await fetchBalance(client);
    return { status: { ...base, check: { state: 'accepted', message: `accepted by ${settings.baseUrl.host}` } } };
  } catch (error) {
    if (!(error instanceof TallyError)) throw error;
    if (error instanceof AuthError) return { status: { ...base, check: { state: 'rejected', message: error.message } }, error };
    if (error.kind === 'interrupted') throw error;
    return { status: { ...base, check: { state: 'unreachable', message: error.message } }, error };
  }
}
