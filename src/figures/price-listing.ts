// Where the price catalog comes from: the cache while it is fresh, the service otherwise, and
// the cache again (with a warning) when the service cannot be reached.
import { DEFAULT_PRICING_TTL_SECONDS } from '../settings/profile-rules.js';
import type { Context } from '../context.js';
import { ConfigError, ServiceError, UsageError } from '../errors.js';
import { fetchCatalog, readCatalog } from '../api/catalog.js';
import { type PriceRow, type SortKey, priceRow, sortRows } from '../domain/catalog.js';
import { ageText, describeAge } from '../domain/words.js';
import { parseTimeSpec } from '../domain/window.js';
import { type JsonObject, isJsonObject, parseJson } from '../domain/json.js';
import { readStateFile } from '../settings/read-file.js';
import { keepYoungGenerationSmall } from '../heap.js';
import {
  type CachedCatalog,
  type CachedListing,
  type CatalogComparison,
  compareCachedCatalog,
  parseCachedCatalog,
  readCachedCatalog,
  readCachedCatalogBytes,
  readCachedListing,
  keptVersionTimes,
  readKeptVersion,
  readPreviousCatalog,
  touchCachedCatalog,
  writeCachedCatalog,
} from '../settings/pricing-cache.js';

export interface CatalogOptions {
  refresh?: boolean;
  offline?: boolean;
  maxAge?: string;
}

export interface LoadedCatalog {
  pricingVersion: string | undefined;
  /** One row per model: what listings filter, sort and show. */
  rows: PriceRow[];
  /** The records exactly as the service sent them, when asked for (`whole`) or fetched now. */
  records?: JsonObject[];
  source: 'live' | 'cache';
  /** When the catalog was fetched (ms since epoch). */
  fetchedAt: number;
  /** The records cached before this run fetched new ones (for --diff). */
  previous?: CatalogVersion;
}

/** A catalog as --diff compares it. */
export interface CatalogVersion {
  pricingVersion: string | undefined;
  records: JsonObject[];
  /** When it was fetched (ms since epoch), when known. */
  fetchedAt?: number;
}

/** A cache write that failed (a full disk, a read-only folder) is a warning: the catalog is still shown. */
function cacheWrite<T>(ctx: Context, write: () => T): T | false {
  try {
    return write();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    ctx.warn(`the price catalog was not cached: ${error.message}`);
    return false;
  }
}

export function catalogTtl(options: CatalogOptions, profileTtl: unknown): number {
  if (options.maxAge === undefined) {
    if (profileTtl === undefined) return DEFAULT_PRICING_TTL_SECONDS;
    // Read back from config.json: checked as `tally config set` checks it.
    if (typeof profileTtl !== 'number' || !Number.isSafeInteger(profileTtl) || profileTtl < 0) throw new UsageError(`pricing_ttl in the profile is not a whole number of seconds (got ${JSON.stringify(profileTtl)}); fix it with \`tally config set pricing_ttl SECONDS\``);
    return profileTtl;
  }
  const seconds = /^\d+$/.test(options.maxAge) ? Number(options.maxAge) : NaN;
  if (!Number.isSafeInteger(seconds)) throw new UsageError(`--max-age "${options.maxAge}" is not a whole number of seconds`);
  return seconds;
}

/**
 * `whole`: the records exactly as the service sent them (--json, --diff); otherwise a cached
 * catalog may come from the listing, which holds only what tables use.
 */
export async function loadCatalog(ctx: Context, options: CatalogOptions, need: { whole: boolean; forceLive?: boolean }): Promise<LoadedCatalog> {
  const forceLive = need.forceLive === true;
  if (options.refresh && options.offline) throw new UsageError('--refresh and --offline contradict each other');
  const [client, , stateDir] = await Promise.all([ctx.client(), ctx.settings(), ctx.stateDir()]);
  const ttl = catalogTtl(options, (await ctx.profileRecord())?.pricing_ttl);
  const fail = (detail: string) => new ServiceError(`the cached price catalog is unusable (${detail}); run \`tally pricing --refresh\``);
  const fromBytes = (bytes: Buffer) => ({ ...readCatalog(parseJson(bytes.toString('utf8')), fail), bytes });
  // A demo sandbox lives for one run: nothing of it is worth keeping in the state folder.
  const cacheable = !ctx.options.demo;
  // The cache is parsed when it may be used: not before a --refresh (only if the service then
  // cannot be reached, or sends the cached catalog again), and before any fetch for --diff
  // (which compares against it).
  let cache: { listing?: CachedListing; whole?: CachedCatalog } | undefined;
  const readCache = () => {
    if (cache) return cache;
    const listing = cacheable && !need.whole && !forceLive ? readCachedListing(stateDir, client.baseUrl) : undefined;
    return (cache = { listing, whole: cacheable && !listing ? readCachedCatalog(stateDir, client.baseUrl) : undefined });
  };
  const fromCache = (): LoadedCatalog | undefined => {
    const { listing, whole } = readCache();
    if (listing) return { pricingVersion: listing.pricingVersion, rows: listing.rows, source: 'cache', fetchedAt: listing.fetchedAt };
    if (!whole) return undefined;
    const catalog = readCatalog(whole.body, fail);
    return { pricingVersion: catalog.pricingVersion, rows: catalog.models.map(priceRow), records: catalog.models, source: 'cache', fetchedAt: whole.fetchedAt };
  };

  if (options.offline) {
    const loaded = fromCache();
    if (!loaded) throw new ServiceError(`no cached price catalog for ${client.baseUrl.origin}; run \`tally pricing\` once while online`);
    return loaded;
  }
  if (!options.refresh && !forceLive) {
    const { listing, whole } = readCache();
    const fetchedAt = (listing ?? whole)?.fetchedAt;
    if (fetchedAt !== undefined && ctx.now() - fetchedAt < ttl * 1000) return fromCache()!;
  }
  /** The cached listing, still current: the service sent the catalog of that listing again (its bytes). */
  const keptListing = (known: CatalogComparison, bytes: Buffer, now: number): LoadedCatalog | undefined => {
    const { listing } = readCache();
    if (!listing || listing.fetchedAt !== known.fetchedAt || !cacheWrite(ctx, () => touchCachedCatalog(stateDir, client.baseUrl, { bytes, pricingVersion: known.pricingVersion }, now))) return undefined;
    return { pricingVersion: listing.pricingVersion, rows: listing.rows, source: 'live', fetchedAt: now };
  };

  // --diff: the catalog cached now (read once: its bytes, and from them its records), and the
  // one before it, read before the fetch replaces them.
  const wholeBytes = forceLive && cacheable ? readCachedCatalogBytes(stateDir, client.baseUrl) : undefined;
  const whole = wholeBytes && parseCachedCatalog(wholeBytes);
  const older = forceLive && cacheable ? readPreviousCatalog(stateDir, client.baseUrl) : undefined;
  // A table needs only the listing: when the service sends exactly the bytes cached before (the
  // usual answer once the TTL has passed), the listing is kept instead of being rebuilt from
  // megabytes of JSON. The answer is compared with the cached file as it lies (see compareCachedCatalog).
  const compareWithCache = cacheable && !need.whole && !forceLive;
  let known: CatalogComparison | undefined;
  // Asked when the answer's bytes are in: from then (the request's modules are loaded) to the end
  // of the work on it, the young generation is kept small (src/heap.ts).
  let endYoungGenerationSmall: (() => void) | undefined;
  const isCached = (bytes: Buffer) => {
    endYoungGenerationSmall ??= keepYoungGenerationSmall();
    return compareWithCache && (known = compareCachedCatalog(stateDir, client.baseUrl, bytes))?.same === true;
  };
  try {
    const fetched = await fetchCatalog(client, isCached);
    const now = ctx.now();
    const kept = 'unchanged' in fetched ? keptListing(known!, fetched.unchanged, now) : undefined;
    if (kept) return kept;
    // Unchanged but without a listing to keep: the bytes are the ones the service just sent.
    const catalog = 'unchanged' in fetched ? fromBytes(fetched.unchanged) : fetched;
    // In name order, as the cached listing keeps them: sorting them again for a table is one pass.
    const rows = sortRows(catalog.models.map(priceRow), 'name');
    // The cached catalog compared with this one already (null: there was none) is not compared again.
    const changed = wholeBytes !== undefined && !wholeBytes.bytes.equals(catalog.bytes);
    const cachedBefore = forceLive ? (wholeBytes ? { ...wholeBytes, same: !changed } : null) : compareWithCache ? (known ?? null) : undefined;
    if (cacheable) cacheWrite(ctx, () => writeCachedCatalog(stateDir, client.baseUrl, { ...catalog, rows }, now, cachedBefore));
    // The baseline: the cached catalog when this one differs from it, else the one before that.
    const baseline = changed ? whole : (older ?? whole);
    const previous = baseline ? readCatalog(baseline.body, fail) : undefined;
    return {
      pricingVersion: catalog.pricingVersion,
      rows,
      records: catalog.models,
      source: 'live',
      fetchedAt: now,
      previous: previous && { pricingVersion: previous.pricingVersion, records: previous.models, fetchedAt: baseline!.fetchedAt },
    };
  } catch (error) {
    // Only an unreachable service falls back: a catalog that answered with an error is reported.
    const unreachable = error instanceof ServiceError && (error.kind === 'network' || error.kind === 'timeout' || (error.status ?? 0) >= 500);
    const loaded = unreachable && !forceLive ? fromCache() : undefined;
    if (!loaded) throw error;
    ctx.warn(`${(error as Error).message}; using the catalog cached ${describeAge(ctx.now() - loaded.fetchedAt)}${loaded.pricingVersion ? ` (version ${loaded.pricingVersion})` : ''}`);
    return loaded;
  } finally {
    endYoungGenerationSmall?.();
  }
}

/** The catalog to compare with (`pricing --diff --against`, `check --against`): a cached pricing_version, or a saved file (raw catalog, cache file, or `pricing --json`). */
export async function baselineFrom(ctx: Context, against: string, versions: (CatalogVersion | undefined)[]): Promise<CatalogVersion> {
  const cached = versions.find((v) => v !== undefined && v.pricingVersion === against);
  if (cached) return cached;
  let text: string;
  try {
    text = readStateFile(against, 256 * 1024 * 1024).toString('utf8');
  } catch (error) {
    const known = versions.map((v) => v?.pricingVersion).filter(Boolean);
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new UsageError(`--against "${against}" is neither a cached catalog version (${known.length ? `cached: ${known.join(', ')}` : 'none cached'}) nor a file`);
    }
    throw new UsageError(`--against "${against}": cannot read it (${(error as Error).message})`);
  }
  let body: unknown;
  try {
    body = parseJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new UsageError(`--against "${against}" is not JSON (${(error as Error).message})`);
  }
  const fail = (detail: string) => new UsageError(`--against "${against}": ${detail}`);
  // tally's cache file holds the catalog under "catalog"; `pricing --json` lists models under "models".
  const unwrapped = isJsonObject(body) && isJsonObject(body.catalog) ? body.catalog : isJsonObject(body) && Array.isArray(body.models) && !Array.isArray(body.data) ? { ...body, data: body.models } : body;
  const catalog = readCatalog(unwrapped as JsonObject, fail);
  ctx.debug(`--diff baseline: ${against} (${catalog.models.length} models)`);
  return { pricingVersion: catalog.pricingVersion, records: catalog.models };
}

/**
 * The kept catalog version last seen closest to `since` ago (--diff --since 7d): versions are
 * kept, with the time each was last seen current, whenever a refresh brings a different one.
 */
export function keptVersionNear(ctx: Context, since: string, stateDir: string, baseUrl: URL): CatalogVersion | undefined {
  const now = Math.floor(ctx.now() / 1000);
  const at = parseTimeSpec(since, { now, anchor: now, zone: ctx.zone }, '--since') * 1000;
  if (at >= ctx.now()) throw new UsageError(`--since "${since}" is not in the past`);
  const times = ctx.options.demo ? [] : keptVersionTimes(stateDir, baseUrl);
  // Nothing kept yet (a first run): nothing to compare with, said as a first --diff says it.
  if (times.length === 0) return undefined;
  const closest = times.reduce((a, b) => (Math.abs(b - at) < Math.abs(a - at) ? b : a));
  const file = readKeptVersion(stateDir, baseUrl, closest);
  if (!file) throw new UsageError(`the catalog version kept from ${new Date(closest).toISOString()} cannot be read; try another --since`);
  const catalog = readCatalog(file.body, (detail) => new UsageError(`the kept catalog version is unusable (${detail})`));
  ctx.debug(`--diff --since ${since}: the version last seen ${new Date(closest).toISOString()} of ${times.length} kept`);
  // The closest kept version may be far from the age asked: said, never passed off as that age.
  const asked = ctx.now() - at;
  if (Math.abs(closest - at) > Math.max(86_400_000, asked / 10)) {
    ctx.warn(`no catalog version is kept from ${since} ago: comparing with the closest, last seen ${ageText(ctx.now() - closest)} ago (${new Date(closest).toISOString().slice(0, 16).replace('T', ' ')} UTC)`);
  }
  return { pricingVersion: catalog.pricingVersion, records: catalog.models, fetchedAt: file.fetchedAt };
}

/** What `tally pricing` is asked: filters, order, the cache's age, and a comparison with an earlier catalog. */
export interface PricingOptions {
  model?: string;
  vendor?: string;
  type?: string;
  group?: string;
  sort: SortKey;
  refresh?: boolean;
  offline?: boolean;
  maxAge?: string;
  diff?: boolean;
  against?: string;
  since?: string;
  exitCode?: boolean;
  usageSince?: string;
}
