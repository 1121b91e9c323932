// Where the price catalog comes from: the cache while it is fresh, the service otherwise, and
// the cache again (with a warning) when the service cannot be reached.
import type { Context } from '../context.js';
import { ServiceError, UsageError } from '../errors.js';
import { type Catalog, fetchCatalog, readCatalog } from '../api/catalog.js';
import { DEFAULT_PRICING_TTL_SECONDS, readCachedCatalog, writeCachedCatalog } from '../settings/pricing-cache.js';

export interface CatalogOptions {
  refresh?: boolean;
  offline?: boolean;
  maxAge?: string;
}

export interface LoadedCatalog {
  catalog: Catalog;
  source: 'live' | 'cache';
  /** When the catalog was fetched (ms since epoch). */
  fetchedAt: number;
  /** The catalog cached before this run fetched a new one (for --diff). */
  previous?: Catalog;
}

export function catalogTtl(options: CatalogOptions, profileTtl: number | undefined): number {
  if (options.maxAge === undefined) return profileTtl ?? DEFAULT_PRICING_TTL_SECONDS;
  const seconds = /^\d+$/.test(options.maxAge) ? Number(options.maxAge) : NaN;
  if (!Number.isSafeInteger(seconds)) throw new UsageError(`--max-age "${options.maxAge}" is not a whole number of seconds`);
  return seconds;
}

export function describeAge(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 90) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

/**
 * `whole`: records exactly as the service sent them (--json, --diff); otherwise a cached
 * catalog may come from the listing, whose records hold only what tables use.
 */
export async function loadCatalog(ctx: Context, options: CatalogOptions, need: { whole: boolean; forceLive?: boolean }): Promise<LoadedCatalog> {
  const forceLive = need.forceLive === true;
  if (options.refresh && options.offline) throw new UsageError('--refresh and --offline contradict each other');
  const [client, settings, stateDir] = await Promise.all([ctx.client(), ctx.settings(), ctx.stateDir()]);
  const ttl = catalogTtl(options, settings.record?.pricing_ttl);
  const fail = (detail: string) => new ServiceError(`the cached price catalog is unusable (${detail}); run \`tally pricing --refresh\``);
  // A demo sandbox lives for one run: nothing of it is worth keeping in the state folder.
  const cacheable = !ctx.options.demo;
  const cached = cacheable ? readCachedCatalog(stateDir, client.baseUrl, need.whole || forceLive ? 'whole' : 'listing') : undefined;
  const fromCache = () => ({ catalog: readCatalog(cached!.body, fail), source: 'cache' as const, fetchedAt: cached!.fetchedAt });

  if (options.offline) {
    if (!cached) throw new ServiceError(`no cached price catalog for ${client.baseUrl.origin}; run \`tally pricing\` once while online`);
    return fromCache();
  }
  if (cached && !options.refresh && !forceLive && ctx.now() - cached.fetchedAt < ttl * 1000) return fromCache();
  try {
    const catalog = await fetchCatalog(client);
    const now = ctx.now();
    if (cacheable) writeCachedCatalog(stateDir, client.baseUrl, catalog, now);
    return { catalog, source: 'live', fetchedAt: now, previous: cached ? readCatalog(cached.body, fail) : undefined };
  } catch (error) {
    // Only an unreachable service falls back: a catalog that answered with an error is reported.
    const unreachable = error instanceof ServiceError && (error.kind === 'network' || error.kind === 'timeout' || (error.status ?? 0) >= 500);
    if (!cached || !unreachable || forceLive) throw error;
    ctx.warn(`${(error as Error).message}; using the catalog cached ${describeAge(ctx.now() - cached.fetchedAt)}${cached.pricingVersion ? ` (version ${cached.pricingVersion})` : ''}`);
    return fromCache();
  }
}
