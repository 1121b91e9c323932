// The key's quota, remembered for a few minutes per gateway and credential
// (cache/key-quota-<id>.json): the token endpoint it comes from sits behind a strict rate limit on
// real gateways (about 20 requests in 20 minutes), and a prompt, a cron job and a dashboard all
// show the quota. A failure to read it is remembered too, so a limited endpoint is not asked
// again at once. It is only a cache: a file that is not exactly what tally wrote is ignored.
import { dirname } from 'node:path';
import { cachePath, credentialId } from './cache-key.js';
import { ensurePrivateDir, writeFileAtomic } from './files.js';
import { readStateFile } from './read-file.js';

/** How long a reading of the token record is used before the endpoint is asked again. */
export const QUOTA_TTL_MS = 5 * 60_000;
const MAX_BYTES = 16 * 1024;
const DECIMAL = /^-?\d{1,100}(\.\d{1,100})?$/;

/** What is kept: the figure's plain form. */
export type CachedQuota =
  | { state: 'quota'; remaining: string; granted: string | null; used: string | null; currency: string | null }
  | { state: 'none'; reason: string }
  | { state: 'unknown'; reason: string; failure?: 'rate_limit' | 'auth' | 'service'; status?: number };

function quotaPath(stateDir: string, baseUrl: URL, secret: string): string {
  return cachePath(stateDir, 'key-quota', baseUrl, secret);
}

export function readCachedQuota(stateDir: string, baseUrl: URL, secret: string, now: number): CachedQuota | undefined {
  try {
    const file = JSON.parse(readStateFile(quotaPath(stateDir, baseUrl, secret), MAX_BYTES).toString('utf8')) as Record<string, unknown>;
    const at = typeof file.fetched_at === 'string' ? Date.parse(file.fetched_at) : Number.NaN;
    if (file.base_url !== baseUrl.href || file.credential_id !== credentialId(secret) || !(now - at >= 0 && now - at < QUOTA_TTL_MS)) return undefined;
    const figure = file.figure as Record<string, unknown> | null;
    if (!figure || typeof figure !== 'object') return undefined;
    const decimal = (v: unknown) => typeof v === 'string' && DECIMAL.test(v);
    if (figure.state === 'quota') {
      const ok = decimal(figure.remaining) && (figure.granted === null || decimal(figure.granted)) && (figure.used === null || decimal(figure.used)) && (figure.currency === null || (typeof figure.currency === 'string' && /^[A-Z]{3}$/.test(figure.currency)));
      return ok ? (figure as CachedQuota) : undefined;
    }
    if (figure.state === 'unknown' && figure.failure !== undefined && !['rate_limit', 'auth', 'service'].includes(figure.failure as string)) return undefined;
    if ((figure.state === 'none' || figure.state === 'unknown') && typeof figure.reason === 'string' && figure.reason.length < 2000) return figure as CachedQuota;
    return undefined;
  } catch {
    return undefined;
  }
}

/** Remembers a reading; a cache that cannot be written costs the next run a request, nothing more. */
export function rememberQuota(stateDir: string, baseUrl: URL, secret: string, figure: CachedQuota, now: number): void {
  try {
    const path = quotaPath(stateDir, baseUrl, secret);
    ensurePrivateDir(dirname(path), { own: true });
    writeFileAtomic(path, [JSON.stringify({ base_url: baseUrl.href, credential_id: credentialId(secret), fetched_at: new Date(now).toISOString(), figure })]);
  } catch {
    // Only a cache.
  }
}
