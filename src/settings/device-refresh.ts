// A stored device token past its expiry is renewed with its refresh token before use; without
// one the user is told to sign in again. A renewal that fails leaves the stored token as it was.
import { AuthError } from '../errors.js';
import type { HttpClient } from '../api/http.js';
import { oauthEndpoints, refreshDeviceToken } from '../api/oauth.js';
import type { ResolvedSettings, StoredCredential } from './resolve.js';
import type { DeviceToken, SettingsStore } from './store.js';

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
  // Renewed under the store's lock, the stored token read again first: two runs that start with
  // the same expired token (a rotating refresh token is good once) renew it once, and the second
  // uses what the first stored.
  const store = await deps.store();
  let fresh: DeviceToken | undefined;
  await store.updateProfile(settings.profile, async (current) => {
    const stored = current.device_token;
    const storedExpiry = stored?.expires_at ? Date.parse(stored.expires_at) : Number.NaN;
    if (stored && stored.access_token !== credential.secret && (!Number.isFinite(storedExpiry) || storedExpiry - EARLY_MS > deps.now())) {
      fresh = stored;
      deps.debug(`device token of profile "${settings.profile}" was renewed by another run; using it`);
      return current;
    }
    fresh = await refreshDeviceToken(await deps.client(), oauthEndpoints(baseUrl, settings.record, undefined), stored?.refresh_token ?? refresh, deps.now());
    deps.debug(`device token of profile "${settings.profile}" renewed; valid until ${fresh.expires_at ?? 'unknown'}`);
    return { ...current, device_token: fresh };
  });
  return { ...credential, secret: fresh!.access_token, device: fresh };
}
