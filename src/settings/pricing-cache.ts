// The price catalog cached whole under the state folder, one file per base URL (spec rule 4:
// the catalog is the same for every caller and may be cached).
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type JsonValue, isJsonObject, parseJson, stringifyJson } from '../domain/json.js';
import { ensurePrivateDir } from './state-dir.js';

export interface CachedCatalog {
  fetchedAt: number;
  pricingVersion: string | undefined;
  body: JsonValue;
}

export const DEFAULT_PRICING_TTL_SECONDS = 3600;

function cachePath(stateDir: string, baseUrl: URL): string {
  const id = createHash('sha256').update(baseUrl.href).digest('hex').slice(0, 16);
  return join(stateDir, 'cache', `pricing-${id}.json`);
}

export function readCachedCatalog(stateDir: string, baseUrl: URL): CachedCatalog | undefined {
  let text: string;
  try {
    text = readFileSync(cachePath(stateDir, baseUrl), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const file = parseJson(text);
    if (!isJsonObject(file) || file.base_url !== baseUrl.href || typeof file.fetched_at !== 'string') return undefined;
    const fetchedAt = Date.parse(file.fetched_at);
    if (!Number.isFinite(fetchedAt) || file.catalog === undefined) return undefined;
    return { fetchedAt, pricingVersion: typeof file.pricing_version === 'string' ? file.pricing_version : undefined, body: file.catalog };
  } catch {
    // A damaged cache is only a cache: treat it as absent (it is replaced on the next fetch).
    return undefined;
  }
}

/** Writes through a temporary file and a rename, so a reader never sees half a catalog. */
export function writeCachedCatalog(stateDir: string, baseUrl: URL, catalog: { body: JsonValue; pricingVersion: string | undefined }, now: number): void {
  const path = cachePath(stateDir, baseUrl);
  ensurePrivateDir(stateDir);
  ensurePrivateDir(join(stateDir, 'cache'));
  const text = stringifyJson({
    base_url: baseUrl.href,
    fetched_at: new Date(now).toISOString(),
    pricing_version: catalog.pricingVersion ?? null,
    catalog: catalog.body,
  });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, path);
}
