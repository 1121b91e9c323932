// tally pricing: the public price catalog in yuan per 1M tokens (or per call), from service_pricing.
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { type CatalogChange, type SortKey, diffCatalogs, filterCatalog, modelName, modelPrices, per1M, sortCatalog, stringList, vendorName } from '../domain/catalog.js';
import type { JsonObject } from '../domain/json.js';
import { emit } from '../output/emit.js';
import { type LoadedCatalog, describeAge, loadCatalog } from './catalog-source.js';

interface PricingOptions {
  model?: string;
  vendor?: string;
  type?: string;
  group?: string;
  sort: SortKey;
  refresh?: boolean;
  offline?: boolean;
  maxAge?: string;
  diff?: boolean;
}

export function configure(command: Command): void {
  command
    .option('--model <glob>', 'only models whose name matches (e.g. "gpt-5*")')
    .option('--vendor <name>', 'only this vendor')
    .option('--type <endpoint-type>', 'only models with this endpoint type')
    .option('--group <group>', 'only models enabled in this group')
    .addOption(new Option('--sort <key>', 'order').choices(['name', 'input', 'output']).default('name'))
    .option('--refresh', 'fetch the catalog even when the cached one is fresh')
    .option('--offline', 'use the cached catalog only')
    .option('--max-age <seconds>', 'reuse a cached catalog younger than this (default 3600)')
    .option('--diff', 'list models added, removed and re-priced since the cached catalog');
}

export async function run(raw: Record<string, unknown>, ctx: Context): Promise<void> {
  const options = raw as unknown as PricingOptions;
  const loaded = await loadCatalog(ctx, options, { whole: ctx.options.json || options.diff === true, forceLive: options.diff === true });
  if (options.diff) return showDiff(ctx, loaded);
  const models = sortCatalog(filterCatalog(loaded.catalog.models, options), options.sort);
  await emit(ctx, {
    json: { pricing_version: loaded.catalog.pricingVersion ?? null, models },
    csv: () => ({
      header: ['model', 'vendor', 'endpoint_types', 'billing_mode', 'input_per_1m', 'output_per_1m', 'cache_read_per_1m', 'other_prices'],
      rows: models.map((m) => {
        const p = modelPrices(m);
        return [modelName(m), vendorName(m) ?? '', stringList(m.supported_endpoint_types).join(' '), typeof m.billing_mode === 'string' ? m.billing_mode : '', p.input ?? '', p.output ?? '', p.cacheRead ?? '', p.other.map((o) => `${o.name}=${o.value}`).join(' ')];
      }),
    }),
    human: () => renderPricing(models, loaded, ctx),
  });
}

export async function priceColumns(models: JsonObject[]) {
  const { yuan } = await import('../output/money.js');
  return models.map((m) => {
    const p = modelPrices(m);
    const token = (value: string | undefined) => (p.perToken && value !== undefined ? yuan(value) : '—');
    const other = p.other.map((o) => `${o.name} ${yuan(o.value)}`).join(', ');
    return [token(p.input), token(p.output), token(p.cacheRead), other];
  });
}

async function renderPricing(models: JsonObject[], loaded: LoadedCatalog, ctx: Context): Promise<string> {
  const [{ renderTable }, { styleFor }] = await Promise.all([import('../output/table.js'), import('../output/style.js')]);
  const style = await styleFor(ctx);
  const prices = await priceColumns(models);
  const table = await renderTable(
    {
      columns: [
        { header: 'model' },
        { header: 'vendor', dropOrder: 2 },
        { header: 'endpoint types', dropOrder: 3 },
        // Prices are tally's own formatting of validated decimals.
        { header: 'input ¥/1M', align: 'right', trusted: true },
        { header: 'output ¥/1M', align: 'right', trusted: true },
        { header: 'cache read ¥/1M', align: 'right', dropOrder: 1, trusted: true },
        { header: 'other prices (¥)' },
      ],
      rows: models.map((m, i) => [modelName(m), vendorName(m) ?? '', stringList(m.supported_endpoint_types).join(', '), ...prices[i]!]),
    },
    style,
  );
  const age = describeAge(ctx.now() - loaded.fetchedAt);
  const note = `${models.length} of ${loaded.catalog.models.length} models · catalog ${loaded.catalog.pricingVersion ?? '(no version)'} · ${loaded.source === 'live' ? 'fetched now' : `cached ${age}`} · prices from service_pricing, yuan per 1M tokens; other prices as the catalog names them`;
  return `${table}${style.paint.dim(note)}\n`;
}

async function showDiff(ctx: Context, loaded: LoadedCatalog): Promise<void> {
  const previous = loaded.previous;
  const changes: CatalogChange[] = previous ? diffCatalogs(previous.models, loaded.catalog.models) : [];
  await emit(ctx, {
    json: {
      pricing_version_before: previous?.pricingVersion ?? null,
      pricing_version_after: loaded.catalog.pricingVersion ?? null,
      compared: previous !== undefined,
      changes,
    },
    human: async () => {
      if (!previous) return `No earlier catalog was cached; saved this one (${loaded.catalog.models.length} models, version ${loaded.catalog.pricingVersion ?? 'none'}) for the next --diff.\n`;
      if (changes.length === 0) return `No changes since the cached catalog (version ${previous.pricingVersion ?? 'none'} → ${loaded.catalog.pricingVersion ?? 'none'}).\n`;
      const [{ renderTable }, { styleFor }, { yuan }] = await Promise.all([import('../output/table.js'), import('../output/style.js'), import('../output/money.js')]);
      const price = (field: string, value: string | null) => (value === null ? 'none' : field.endsWith('_unit_price') || field === 'cache_read_input_price' ? `${yuan(per1M(value))}/1M` : yuan(value));
      const rows = changes.map((c) => [
        c.model,
        c.kind,
        Object.entries(c.prices ?? {}).map(([field, [a, b]]) => `${field} ${price(field, a)} → ${price(field, b)}`).join('; '),
      ]);
      return renderTable({ columns: [{ header: 'model' }, { header: 'change' }, { header: 'details' }], rows }, await styleFor(ctx));
    },
  });
}
