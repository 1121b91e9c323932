// The price catalog cached whole under the state folder, one file per base URL (spec rule 4:
// the catalog is the same for every caller and may be cached), and beside it a listing: what
// tables filter, sort and show, stored compactly (see domain/catalog.ts toListing). A listing
// of thousands of models loads in a fraction of the time of the whole catalog.
import { copyFileSync, linkSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { readStateFile, scanStateFile } from './read-file.js';
import { join } from 'node:path';
import { type JsonValue, isJsonObject, parseJson } from '../domain/json.js';
import { type PriceRow, sortRows } from '../domain/catalog.js';
import { ensurePrivateDir, writeError, writeFileAtomic } from './files.js';
import { cachePath as keyedCachePath } from './cache-key.js';
import { fromListing, toListing } from '../domain/listing.js';

export interface CachedCatalog {
  fetchedAt: number;
  pricingVersion: string | undefined;
  body: JsonValue;
}

/** The cached catalog's bytes as the service sent them, not decoded. */
export interface CachedBytes {
  fetchedAt: number;
  pricingVersion: string | undefined;
  bytes: Buffer;
}

export interface CachedListing {
  fetchedAt: number;
  pricingVersion: string | undefined;
  rows: PriceRow[];
}

/** A cached catalog of any real size fits (a padded load-test catalog is tens of MB); a file past this is not one tally wrote. */
const MAX_CACHE_BYTES = 256 * 1024 * 1024;

/** The whole catalog, its listing, and the catalog before the last change (the --diff baseline). */
export type CacheView = 'whole' | 'listing' | 'previous';

function cachePath(stateDir: string, baseUrl: URL, view: CacheView): string {
  return keyedCachePath(stateDir, 'pricing', baseUrl, undefined, view === 'whole' ? '.json' : view === 'listing' ? '.listing.json' : '.previous.json');
}


function readCacheFile(stateDir: string, baseUrl: URL, view: Exclude<CacheView, 'whole'>): { fetchedAt: number; pricingVersion: string | undefined; body: JsonValue } | undefined {
  let text: string;
  try {
    text = readStateFile(cachePath(stateDir, baseUrl, view), MAX_CACHE_BYTES).toString('utf8');
  } catch {
    return undefined;
  }
  try {
    // The listing holds no amount as a number (prices are decimal strings): the native parser
    // is exact for it. The whole catalog keeps the service's numbers and is parsed losslessly.
    const file = view === 'listing' ? (JSON.parse(text) as JsonValue) : parseJson(text);
    const head = headOf(file, baseUrl);
    if (!head || !isJsonObject(file) || file.catalog === undefined) return undefined;
    return { ...head, body: file.catalog };
  } catch {
    // A damaged cache is only a cache: treat it as absent (it is replaced on the next fetch).
    return undefined;
  }
}

/** The whole cached catalog, records exactly as the service sent them. */
export function readCachedCatalog(stateDir: string, baseUrl: URL): CachedCatalog | undefined {
  const cached = readCachedCatalogBytes(stateDir, baseUrl);
  return cached && parseCachedCatalog(cached);
}

/** The cached catalog's bytes (readCachedCatalogBytes) parsed, records exactly as sent; undefined when they are not JSON. */
export function parseCachedCatalog(cached: CachedBytes): CachedCatalog | undefined {
  try {
    return { fetchedAt: cached.fetchedAt, pricingVersion: cached.pricingVersion, body: parseJson(cached.bytes.toString('utf8')) };
  } catch {
    // A damaged cache is only a cache: treat it as absent (it is replaced on the next fetch).
    return undefined;
  }
}

/** The catalog cached before the last one that differed from it (what --diff compares with). */
export function readPreviousCatalog(stateDir: string, baseUrl: URL): CachedCatalog | undefined {
  return readCacheFile(stateDir, baseUrl, 'previous');
}

/** The cached listing; undefined when there is none or it is not one tally wrote. */
export function readCachedListing(stateDir: string, baseUrl: URL): CachedListing | undefined {
  const file = readCacheFile(stateDir, baseUrl, 'listing');
  const rows = file && fromListing(file.body);
  return rows && { fetchedAt: file.fetchedAt, pricingVersion: file.pricingVersion, rows };
}

/**
 * The cached catalog's bytes exactly as the service sent them, found without decoding or
 * parsing them (a refetch compares the service's answer with them byte for byte).
 */
export function readCachedCatalogBytes(stateDir: string, baseUrl: URL): CachedBytes | undefined {
  let file: Buffer;
  try {
    file = readStateFile(cachePath(stateDir, baseUrl, 'whole'), MAX_CACHE_BYTES);
  } catch {
    return undefined;
  }
  const at = file.indexOf(CATALOG_KEY);
  if (at < 0 || file.at(-1) !== 0x7d /* } */) return undefined;
  const head = readHead(file.subarray(0, at).toString('utf8'), baseUrl);
  return head && { ...head, bytes: file.subarray(at + CATALOG_KEY.length, -1) };
}

/** What the cached catalog's file says of itself, and whether its catalog is exactly the bytes compared with it. */
export interface CatalogComparison {
  fetchedAt: number;
  pricingVersion: string | undefined;
  same: boolean;
}

/**
 * The cached catalog compared with `bytes` (a catalog just received) a piece at a time, without
 * reading its megabytes into memory: a file of another size differs unread, a difference ends
 * the reading. Undefined when there is no cache file, or not one tally wrote for this base URL.
 */
export function compareCachedCatalog(stateDir: string, baseUrl: URL, bytes: Uint8Array): CatalogComparison | undefined {
  let found: CatalogComparison | undefined;
  let start = 0;
  try {
    scanStateFile(cachePath(stateDir, baseUrl, 'whole'), MAX_CACHE_BYTES, (piece, offset, size, byteAt) => {
      if (offset === 0) {
        // The head (a URL and two short fields) is in the first piece of any file tally wrote,
        // and the file's last byte closes it.
        const at = piece.indexOf(CATALOG_KEY);
        const head = at < 0 || byteAt(size - 1) !== 0x7d /* } */ ? undefined : readHead(piece.subarray(0, at).toString('utf8'), baseUrl);
        if (!head) return false;
        start = at + CATALOG_KEY.length;
        found = { ...head, same: size === start + bytes.length + 1 };
      }
      // The part of this piece that is catalog text.
      const from = Math.max(offset, start);
      const to = Math.min(offset + piece.length, size - 1);
      if (found!.same && to > from && piece.compare(bytes, from - start, to - start, from - offset, to - offset) !== 0) found!.same = false;
      return found!.same;
    });
  } catch {
    return undefined;
  }
  return found;
}

/** What the cached catalog's file says of itself (when fetched, which version), its catalog not read. */
export function readCachedCatalogHead(stateDir: string, baseUrl: URL): Omit<CatalogComparison, 'same'> | undefined {
  const compared = compareCachedCatalog(stateDir, baseUrl, new Uint8Array(0));
  return compared && { fetchedAt: compared.fetchedAt, pricingVersion: compared.pricingVersion };
}

/**
 * Records that the service sent the cached catalog again, unchanged (its bytes are given), at
 * `now`: both files get the new fetch time and keep their catalog as it is. False when the
 * listing is missing or not one tally wrote (the caller then writes the catalog afresh).
 */
export function touchCachedCatalog(stateDir: string, baseUrl: URL, catalog: { bytes: Uint8Array; pricingVersion: string | undefined }, now: number): boolean {
  let listing: string;
  try {
    listing = readStateFile(cachePath(stateDir, baseUrl, 'listing'), MAX_CACHE_BYTES).toString('utf8');
  } catch {
    return false;
  }
  const at = listing.indexOf(CATALOG_KEY);
  if (at < 0 || !listing.endsWith('}') || !readHead(listing.slice(0, at), baseUrl)) return false;
  const head = cacheHead(baseUrl, now, catalog.pricingVersion);
  writeCacheFile(stateDir, baseUrl, 'listing', [head, listing.slice(at + CATALOG_KEY.length)]);
  writeCacheFile(stateDir, baseUrl, 'whole', [head, catalog.bytes, '}']);
  return true;
}

/**
 * Writes the whole catalog (its text exactly as the service sent it: every number and key as
 * it was, and no time spent writing 3 MB of JSON again) and its listing, each through a
 * temporary file and a rename, so a reader never sees half a catalog. The listing goes first:
 * a reader that finds a whole catalog newer than its listing reads an older listing, never a
 * mismatched one for long.
 */
export function writeCachedCatalog(
  stateDir: string,
  baseUrl: URL,
  catalog: { bytes: Uint8Array; pricingVersion: string | undefined; rows: PriceRow[] },
  now: number,
  /** The cached catalog compared with this one when the caller has just done so (null: there was none). */
  cachedNow?: CatalogComparison | null,
): void {
  const head = cacheHead(baseUrl, now, catalog.pricingVersion);
  // A different catalog replaces the cached one: that one becomes the baseline of the next --diff.
  const cached = cachedNow === undefined ? compareCachedCatalog(stateDir, baseUrl, catalog.bytes) : cachedNow;
  if (cached && !cached.same) {
    try {
      renameSync(cachePath(stateDir, baseUrl, 'whole'), cachePath(stateDir, baseUrl, 'previous'));
    } catch (error) {
      throw writeError(cachePath(stateDir, baseUrl, 'previous'), error);
    }
    keepVersion(stateDir, baseUrl, cached.fetchedAt);
  }
  // In name order, the order tables show by default: sorting it again is one pass.
  writeCacheFile(stateDir, baseUrl, 'listing', [head, JSON.stringify(toListing(sortRows(catalog.rows, 'name'))), '}']);
  writeCacheFile(stateDir, baseUrl, 'whole', [head, catalog.bytes, '}']);
}

/** How many earlier catalog versions are kept (for `pricing --diff --since`), newest first. */
export const KEPT_VERSIONS = 12;

function versionsDir(stateDir: string, baseUrl: URL): string {
  return keyedCachePath(stateDir, 'pricing', baseUrl, undefined, '.versions');
}

/**
 * Keeps the catalog that was just replaced (now the 'previous' file) among the dated versions:
 * a hard link, so no megabytes are copied; the oldest beyond KEPT_VERSIONS go. A version that
 * cannot be kept only narrows what --diff --since can compare with.
 */
function keepVersion(stateDir: string, baseUrl: URL, lastSeen: number): void {
  const dir = versionsDir(stateDir, baseUrl);
  try {
    ensurePrivateDir(dir, { own: true });
    const target = join(dir, `${lastSeen}.json`);
    try {
      linkSync(cachePath(stateDir, baseUrl, 'previous'), target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') copyFileSync(cachePath(stateDir, baseUrl, 'previous'), target);
    }
    for (const old of keptVersionTimes(stateDir, baseUrl).slice(KEPT_VERSIONS)) rmSync(join(dir, `${old}.json`), { force: true });
  } catch {
    // Only a history: the catalog and its baseline are written all the same.
  }
}

/** When each kept version was last seen current (ms since the epoch), newest first. */
export function keptVersionTimes(stateDir: string, baseUrl: URL): number[] {
  try {
    return readdirSync(versionsDir(stateDir, baseUrl))
      .map((name) => /^(\d{1,15})\.json$/.exec(name)?.[1])
      .filter((t): t is string => t !== undefined)
      .map(Number)
      .sort((a, b) => b - a);
  } catch {
    return [];
  }
}

/** A kept version, read as a cache file; undefined when it is not one tally wrote for this gateway. */
export function readKeptVersion(stateDir: string, baseUrl: URL, lastSeen: number): CachedCatalog | undefined {
  let text: string;
  try {
    text = readStateFile(join(versionsDir(stateDir, baseUrl), `${lastSeen}.json`), MAX_CACHE_BYTES).toString('utf8');
  } catch {
    return undefined;
  }
  try {
    const file = parseJson(text);
    const head = headOf(file, baseUrl);
    return head && isJsonObject(file) && file.catalog !== undefined ? { ...head, body: file.catalog } : undefined;
  } catch {
    return undefined;
  }
}

// A cache file is {"base_url", "fetched_at", "pricing_version", "catalog"}, the catalog last:
// the head is everything before the catalog's text.
const CATALOG_KEY = ',"catalog":';

function cacheHead(baseUrl: URL, now: number, pricingVersion: string | undefined): string {
  const head = JSON.stringify({ base_url: baseUrl.href, fetched_at: new Date(now).toISOString(), pricing_version: pricingVersion ?? null });
  return `${head.slice(0, -1)}${CATALOG_KEY}`;
}

/** The head of a cache file (everything before its catalog, closed): its URL must be this one. */
function readHead(text: string, baseUrl: URL): { fetchedAt: number; pricingVersion: string | undefined } | undefined {
  try {
    return headOf(JSON.parse(`${text}}`) as JsonValue, baseUrl);
  } catch {
    return undefined;
  }
}

/** What a cache file says of itself, when it is one tally wrote for this base URL. */
function headOf(file: JsonValue, baseUrl: URL): { fetchedAt: number; pricingVersion: string | undefined } | undefined {
  if (!isJsonObject(file) || file.base_url !== baseUrl.href || typeof file.fetched_at !== 'string') return undefined;
  const fetchedAt = Date.parse(file.fetched_at);
  if (!Number.isFinite(fetchedAt)) return undefined;
  return { fetchedAt, pricingVersion: typeof file.pricing_version === 'string' ? file.pricing_version : undefined };
}

/** Writes a cache file from its parts through a temporary file and a rename. */
function writeCacheFile(stateDir: string, baseUrl: URL, view: CacheView, parts: (string | Uint8Array)[]): void {
  ensurePrivateDir(join(stateDir, 'cache'), { own: true });
  writeFileAtomic(cachePath(stateDir, baseUrl, view), parts);
}
