// tally pricing: the public price catalog in yuan per 1M tokens (or per call, second, image),
// from service_pricing, never from the ratios.
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { escapeControl } from '../output/escape.js';
import { ServiceError, TallyError, UsageError } from '../errors.js';
import { readCatalog } from '../api/catalog.js';
import { type CatalogChange, diffCatalogs, filterRows, modelName, per1M, sortRows } from '../domain/catalog.js';
import type { JsonObject } from '../domain/json.js';
import { emit } from '../output/emit.js';
import { ChangesFound } from '../errors.js';
import { type CatalogVersion, type PricingOptions, baselineFrom, describeAge, keptVersionNear, loadCatalog } from '../figures/price-listing.js';
import type { Repricing } from '../figures/repricing.js';
import { PRICE_CSV_HEADER, priceCsv, renderPricing } from '../output/prices.js';
import { globMatcher } from '../domain/glob.js';


export function configure(command: Command): void {
  command
    .option('--model <glob>', 'only models whose name matches (e.g. "gpt-5*")')
    .option('--vendor <name>', 'only this vendor')
    .option('--type <endpoint-type>', 'only models with this endpoint type')
    .option('--group <group>', 'only models enabled in this group')
    .addOption(new Option('--sort <key>', 'order: by name, or by the input or output price shown').choices(['name', 'input', 'output']).default('name'))
    .option('--refresh', 'fetch the catalog even when the cached one is fresh')
    .option('--offline', 'use the cached catalog only')
    .option('--max-age <seconds>', 'reuse a cached catalog younger than this (default 3600)')
    .option('--diff', 'list models added, removed and re-priced since the previous catalog version')
    .option('--against <version|file>', 'with --diff: compare with this cached pricing_version, or a saved catalog file')
    .option('--since <span|date>', 'with --diff: compare with the kept catalog version closest to that age (7d, 2w, 2026-11-01), and price the repricing on the usage since then')
    .option('--exit-code', 'with --diff: exit 5 when the catalog changed (as git diff --exit-code exits 1)')
    .option('--usage-since <span|date>', "with --diff: the window of the key's usage a repricing is priced on (default --since, else 30d)");
}

export async function run(raw: Record<string, unknown>, ctx: Context, _args: string[], given: (name: string) => boolean = () => false): Promise<void> {
  const options = raw as unknown as PricingOptions;
  for (const flag of ['against', 'since', 'exitCode', 'usageSince'] as const) {
    if (options[flag] !== undefined && !options.diff) throw new UsageError(`--${flag === 'exitCode' ? 'exit-code' : flag === 'usageSince' ? 'usage-since' : flag} goes with --diff`);
  }
  if (options.against !== undefined && options.since !== undefined) throw new UsageError('--against and --since each choose what --diff compares with; give one of them');
  if (options.diff) {
    // Before the fetch: --diff replaces the cached catalog it compares against.
    if (ctx.options.csv) throw new UsageError('--diff prints changes, not rows: use --json instead of --csv');
    for (const flag of ['vendor', 'type', 'group'] as const) if (options[flag] !== undefined) throw new UsageError(`--${flag} does not narrow --diff (a removed model has no ${flag} now); --model does`);
    if (given('sort')) throw new UsageError('--diff lists changes by model name; --sort does not apply');
    return showDiff(ctx, options);
  }
  const loaded = await loadCatalog(ctx, options, { whole: ctx.options.json });
  const rows = sortRows(filterRows(loaded.rows, options, () => ctx.checkDeadline()), options.sort);
  await emit(ctx, {
    json: () => {
      // The records exactly as sent, in the order and selection of the rows (two records with one name both kept).
      const byName = new Map<string, JsonObject[]>();
      for (const record of loaded.records ?? []) {
        const list = byName.get(modelName(record));
        if (list) list.push(record);
        else byName.set(modelName(record), [record]);
      }
      const taken = new Map<string, number>();
      return {
        pricing_version: loaded.pricingVersion ?? null,
        models: rows.map((row) => {
          const index = taken.get(row.name) ?? 0;
          taken.set(row.name, index + 1);
          return byName.get(row.name)![index]!;
        }),
      };
    },
    csv: () => ({
      header: ['model', 'vendor', 'endpoint_types', 'billing_mode', ...PRICE_CSV_HEADER],
      rows: rows.map((row) => [row.name, row.vendor, row.types.join(' '), row.billingMode, ...priceCsv(row)]),
    }),
    human: () => renderPricing(rows, loaded, ctx, options),
  });
}

async function showDiff(ctx: Context, options: PricingOptions): Promise<void> {
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
  const view = impact && (await import('../output/repricing.js'));
  await emit(ctx, {
    json: {
      pricing_version_before: baseline?.pricingVersion ?? null,
      pricing_version_after: current.pricingVersion ?? null,
      compared: baseline !== undefined,
      changes,
      // What the repricing costs this key's usage; null when nothing was repriced or there is no API key to read usage with.
      impact: impact && view ? view.repricingJson(impact) : null,
      ...(why && changes.some((c) => c.kind === 'repriced') ? { impact_note: why } : {}),
    },
    human: async () => {
      // The version is the service's text: escaped, as every piece of data on a terminal.
      const version = (v: string | undefined) => (v === undefined ? '(no version)' : escapeControl(v));
      if (!baseline) {
        if (options.since !== undefined) return `No earlier catalog version is kept yet (tally keeps one each time a refresh brings a changed catalog); saved this one (version ${version(current.pricingVersion)}) for the next --diff.\n`;
        return options.offline
          ? `Only one catalog version is cached (${version(current.pricingVersion)}); --diff compares once a refresh brings a different one.\n`
          : `No earlier catalog was cached; saved this one (${loaded.rows.length} models, version ${version(current.pricingVersion)}) for the next --diff.\n`;
      }
      const heading = `catalog ${version(baseline.pricingVersion)}${baseline.fetchedAt ? ` (fetched ${describeAge(ctx.now() - baseline.fetchedAt)})` : ''} → ${version(current.pricingVersion)}${options.offline ? ' (cached)' : ''}`;
      if (changes.length === 0) return `No changes: ${heading}.\n`;
      const [{ renderTable }, { styleFor }, { formatAmount }] = await Promise.all([import('../output/table.js'), import('../output/style.js'), import('../output/money.js')]);
      const exact = ctx.options.exact;
      const price = (field: string, value: string | null) =>
        value === null ? 'none' : field.endsWith('_unit_price') || field === 'cache_read_input_price' ? `${formatAmount(per1M(value), 'unit-price', { exact })}/1M` : formatAmount(value, 'unit-price', { exact });
      const rows = changes.map((c) => [
        c.model,
        c.kind,
        Object.entries(c.prices ?? {}).map(([field, [a, b]]) => `${field} ${price(field, a)} → ${price(field, b)}`).join('; '),
      ]);
      const style = await styleFor(ctx);
      const table = `${await renderTable({ columns: [{ header: 'model' }, { header: 'change' }, { header: 'details' }], rows }, style)}${style.paint.dim(heading)}\n`;
      // Someone browsing the public catalog without a credential is not told about usage they have none of.
      const said = why && changes.some((c) => c.kind === 'repriced') && (await ctx.settings()).credential !== undefined;
      if (!impact || !view) return said ? `${table}${style.paint.dim(`not priced on this key's usage: ${escapeControl(why)}`)}\n` : table;
      return `${table}\n${style.paint.bold('What the repricing does to this key\'s spend')}\n${await view.renderRepricing(impact, ctx, { first: 'model', before: 'old prices', after: 'new prices' })}`;
    },
  });
  if (options.exitCode && changes.length > 0) throw new ChangesFound(`the catalog changed: ${changes.length} model${changes.length === 1 ? '' : 's'} added, removed or re-priced`);
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
