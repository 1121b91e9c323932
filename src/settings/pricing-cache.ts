// The price catalog cached whole under the state folder, one file per base URL (spec rule 4:
// the catalog is the same for every caller and may be cached), and beside it a listing: what
// tables filter, sort and show, stored compactly (see domain/catalog.ts toListing). A listing
// of thousands of models loads in a fraction of the time of the whole catalog.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type JsonValue, isJsonObject, parseJson } from '../domain/json.js';
import { type PriceRow, fromListing, sortRows, toListing } from '../domain/catalog.js';
import { ensurePrivateDir } from './state-dir.js';

export interface CachedCatalog {
  fetchedAt: number;
  pricingVersion: string | undefined;
  body: JsonValue;
}

export interface CachedListing {
  fetchedAt: number;
  pricingVersion: string | undefined;
  rows: PriceRow[];
}

export const DEFAULT_PRICING_TTL_SECONDS = 3600;

export type CacheView = 'whole' | 'listing';

function cachePath(stateDir: string, baseUrl: URL, view: CacheView): string {
  const id = fileNameFor(baseUrl);
  return join(stateDir, 'cache', view === 'whole' ? `pricing-${id}.json` : `pricing-${id}.listing.json`);
}

/**
 * The base URL as a readable file name, safe on any file system: `https://gw.example.com/`
 * is `https_gw.example.com`. Two URLs that differ only in punctuation share a name, but the
 * file records its URL, so neither ever reads the other's catalog (it is a cache miss).
 */
export function fileNameFor(baseUrl: URL): string {
  return `${baseUrl.protocol}//${baseUrl.host}${baseUrl.pathname}`.replace(/[^A-Za-z0-9.-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 120);
}

function readCacheFile(stateDir: string, baseUrl: URL, view: CacheView): { fetchedAt: number; pricingVersion: string | undefined; body: JsonValue } | undefined {
  let text: string;
  try {
    text = readFileSync(cachePath(stateDir, baseUrl, view), 'utf8');
  } catch {
    return undefined;
  }
  try {
    // The listing holds no amount as a number (prices are decimal strings): the native parser
    // is exact for it. The whole catalog keeps the service's numbers and is parsed losslessly.
    const file = view === 'listing' ? (JSON.parse(text) as JsonValue) : parseJson(text);
    if (!isJsonObject(file) || file.base_url !== baseUrl.href || typeof file.fetched_at !== 'string') return undefined;
    const fetchedAt = Date.parse(file.fetched_at);
    if (!Number.isFinite(fetchedAt) || file.catalog === undefined) return undefined;
    return { fetchedAt, pricingVersion: typeof file.pricing_version === 'string' ? file.pricing_version : undefined, body: file.catalog };
  } catch {
    // A damaged cache is only a cache: treat it as absent (it is replaced on the next fetch).
    return undefined;
  }
}

/** The whole cached catalog, records exactly as the service sent them. */
export function readCachedCatalog(stateDir: string, baseUrl: URL): CachedCatalog | undefined {
  return readCacheFile(stateDir, baseUrl, 'whole');
}

/** The cached listing; undefined when there is none or it is not one tally wrote. */
export function readCachedListing(stateDir: string, baseUrl: URL): CachedListing | undefined {
  const file = readCacheFile(stateDir, baseUrl, 'listing');
  const rows = file && fromListing(file.body);
  return rows && { fetchedAt: file.fetchedAt, pricingVersion: file.pricingVersion, rows };
}

/**
 * Writes the whole catalog (its text exactly as the service sent it: every number and key as
 * it was, and no time spent writing 3 MB of JSON again) and its listing, each through a
 * temporary file and a rename, so a reader never sees half a catalog. The listing goes first:
 * a reader that finds a whole catalog newer than its listing reads an older listing, never a
 * mismatched one for long.
 */
export function writeCachedCatalog(stateDir: string, baseUrl: URL, catalog: { text: string; pricingVersion: string | undefined; rows: PriceRow[] }, now: number): void {
  ensurePrivateDir(stateDir);
  ensurePrivateDir(join(stateDir, 'cache'));
  const head = JSON.stringify({ base_url: baseUrl.href, fetched_at: new Date(now).toISOString(), pricing_version: catalog.pricingVersion ?? null });
  const write = (view: CacheView, catalogJson: string) => {
    const path = cachePath(stateDir, baseUrl, view);
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${head.slice(0, -1)},"catalog":${catalogJson}}`, { mode: 0o600 });
    renameSync(temporary, path);
  };
  // In name order, the order tables show by default: sorting it again is one pass.
  write('listing', JSON.stringify(toListing(sortRows(catalog.rows, 'name'))));
  write('whole', catalog.text);
}
