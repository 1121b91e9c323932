// A stored device token past its expiry is renewed with its refresh token before use; without
// one the user is told to sign in again.
import type { Context } from '../context.js';
import { AuthError } from '../errors.js';
import { oauthEndpoints, refreshDeviceToken } from '../api/oauth.js';
import type { ResolvedSettings, StoredCredential } from './resolve.js';

/** Renew this long before the stated expiry, so a request does not race it. */
const EARLY_MS = 30_000;

export async function freshDeviceCredential(ctx: Context, settings: ResolvedSettings, baseUrl: URL): Promise<StoredCredential> {
  const credential = settings.credential!;
  const expiresAt = credential.device?.expires_at ? Date.parse(credential.device.expires_at) : NaN;
  if (!Number.isFinite(expiresAt) || expiresAt - EARLY_MS > ctx.now()) return credential;
  const refresh = credential.device?.refresh_token;
  if (!refresh) {
    throw new AuthError(`the device login of profile "${settings.profile}" expired at ${credential.device!.expires_at}; run \`tally login --device\` again`);
  }
  const client = await ctx.clientFor('oauth-refresh', baseUrl, undefined);
  const token = await refreshDeviceToken(client, oauthEndpoints(baseUrl, settings.record, undefined), refresh, ctx.now());
  const store = await ctx.store();
  await store.updateProfile(settings.profile, (current) => ({ ...current, device_token: token }));
  ctx.debug(`device token of profile "${settings.profile}" renewed; valid until ${token.expires_at ?? 'unknown'}`);
  return { ...credential, secret: token.access_token, device: token };
}
