// `pricing --diff`: the catalog now against an earlier one (the one cached before this refresh,
// a kept version near --since, or a version or file named by --against), what changed, and what
// the repricing does to the key's usage (or why that is not said).
import type { Context } from '../context.js';
import { ServiceError, TallyError } from '../errors.js';
import { readCatalog } from '../api/catalog.js';
import { type CatalogChange, diffCatalogs } from '../domain/catalog.js';
import { globMatcher } from '../domain/glob.js';
import type { Repricing } from './repricing.js';
import { type CatalogVersion, type LoadedCatalog, type PricingOptions, baselineFrom, keptVersionNear, loadCatalog } from './price-listing.js';

export interface CatalogDiff {
  loaded: LoadedCatalog;
  current: CatalogVersion;
  /** What it is compared with; undefined when there is nothing earlier to compare with. */
  baseline: CatalogVersion | undefined;
  changes: CatalogChange[];
  impact?: Repricing;
  /** Why the impact is not priced, when it is not. */
  why?: string;
  /** As asked: --since, --offline. */
  since?: string;
  offline: boolean;
}

export async function loadCatalogDiff(ctx: Context, options: PricingOptions): Promise<CatalogDiff> {
  const loaded = await loadCatalog(ctx, options, { whole: true, forceLive: !options.offline });
  const { readPreviousCatalog } = await import('../settings/pricing-cache.js');
  const client = await ctx.client();
  const stateDir = await ctx.stateDir();
  const olderFile = ctx.options.demo ? undefined : readPreviousCatalog(stateDir, client.baseUrl);
  const older = olderFile && (() => {
    const catalog = readCatalog(olderFile.body, (detail) => new ServiceError(`the previous cached catalog is unusable (${detail})`));
    return { pricingVersion: catalog.pricingVersion, records: catalog.models, fetchedAt: olderFile.fetchedAt };
  })();
  const current: CatalogVersion = { pricingVersion: loaded.pricingVersion, records: loaded.records ?? [], fetchedAt: loaded.fetchedAt };
  let baseline: CatalogVersion | undefined;
  if (options.against !== undefined) baseline = await baselineFrom(ctx, options.against, [options.offline ? current : undefined, loaded.previous, older]);
  else if (options.since !== undefined) baseline = keptVersionNear(ctx, options.since, stateDir, client.baseUrl);
  else baseline = options.offline ? older : loaded.previous;
  const model = options.model ? globMatcher(options.model) : undefined;
  const changes: CatalogChange[] = baseline ? (await diffCatalogs(baseline.records, current.records, () => ctx.checkpoint())).filter((c) => !model || model(c.model)) : [];
  const { impact, why } = baseline ? await impactOf(ctx, changes, baseline, current, options.usageSince ?? options.since) : { impact: undefined, why: undefined };
  return { loaded, current, baseline, changes, ...(impact ? { impact } : {}), ...(why ? { why } : {}), ...(options.since !== undefined ? { since: options.since } : {}), offline: options.offline === true };
}

/** The repricing priced on the key's usage, or why it is not: nothing repriced, no API key, or usage that could not be read. */
async function impactOf(ctx: Context, changes: CatalogChange[], baseline: CatalogVersion, current: CatalogVersion, since: string | undefined): Promise<{ impact?: Repricing; why?: string }> {
  if (!changes.some((c) => c.kind === 'repriced')) return { why: 'no model was repriced' };
  const settings = await ctx.settings();
  if (settings.credential?.kind !== 'api-key') return { why: "an API key reads the usage a repricing is priced on; this profile has none" };
  const { priceImpact } = await import('../figures/repricing.js');
  try {
    return { impact: await priceImpact(ctx, changes, baseline.records, current.records, since) };
  } catch (error) {
    // The catalog's changes stand on their own: usage that cannot be read leaves the impact unsaid, with the reason.
    if (!(error instanceof TallyError) || error.kind === 'interrupted' || error.kind === 'usage') throw error;
    ctx.debug(`pricing --diff: the key's usage could not be read: ${(error as Error).message}`);
    return { why: `the key's usage could not be read (${ctx.secrets.scrubMessage((error as Error).message)})` };
  }
}
