// A stored device token past its expiry is renewed with its refresh token before use; without
// one the user is told to sign in again. A renewal that fails leaves the stored token as it was.
import { AuthError } from '../errors.js';
import type { HttpClient } from '../api/http.js';
import { oauthEndpoints, refreshDeviceToken } from '../api/oauth.js';
import type { ResolvedSettings, StoredCredential } from './resolve.js';
import type { SettingsStore } from './store.js';

/** Renew this long before the stated expiry, so a request does not race it. */
const EARLY_MS = 30_000;

export interface RefreshDeps {
  now: () => number;
  /** A client for the OAuth endpoints (it sends no credential). */
  client: () => Promise<HttpClient>;
  store: () => Promise<SettingsStore>;
  debug: (line: string) => void;
}

export async function freshDeviceCredential(deps: RefreshDeps, settings: ResolvedSettings, baseUrl: URL): Promise<StoredCredential> {
  const credential = settings.credential!;
  const expiresAt = credential.device?.expires_at ? Date.parse(credential.device.expires_at) : Number.NaN;
  if (!Number.isFinite(expiresAt) || expiresAt - EARLY_MS > deps.now()) return credential;
  const refresh = credential.device?.refresh_token;
  if (!refresh) {
    throw new AuthError(`the device login of profile "${settings.profile}" expired at ${credential.device!.expires_at}; run \`tally login --device\` again`);
  }
  const token = await refreshDeviceToken(await deps.client(), oauthEndpoints(baseUrl, settings.record, undefined), refresh, deps.now());
  const store = await deps.store();
  await store.updateProfile(settings.profile, (current) => ({ ...current, device_token: token }));
  deps.debug(`device token of profile "${settings.profile}" renewed; valid until ${token.expires_at ?? 'unknown'}`);
  return { ...credential, secret: token.access_token, device: token };
}
