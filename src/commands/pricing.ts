// tally pricing: the public price catalog in yuan per 1M tokens (or per call), from service_pricing.
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { type CatalogChange, type PriceRow, type SortKey, diffCatalogs, filterRows, modelName, per1M, sortRows } from '../domain/catalog.js';
import { emit } from '../output/emit.js';
import { memo } from '../output/memo.js';
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
  // Before the fetch: --diff replaces the cached catalog it compares against.
  if (options.diff && ctx.options.csv) throw new UsageError('--diff prints changes, not rows: use --json instead of --csv');
  const loaded = await loadCatalog(ctx, options, { whole: ctx.options.json || options.diff === true, forceLive: options.diff === true });
  if (options.diff) return showDiff(ctx, loaded);
  const rows = sortRows(filterRows(loaded.rows, options), options.sort);
  await emit(ctx, {
    json: () => {
      // The records exactly as sent, in the order and selection of the rows.
      const byName = new Map((loaded.records ?? []).map((record) => [modelName(record), record]));
      return { pricing_version: loaded.pricingVersion ?? null, models: rows.map((row) => byName.get(row.name)!) };
    },
    csv: () => ({
      header: ['model', 'vendor', 'endpoint_types', 'billing_mode', 'input_per_1m', 'output_per_1m', 'cache_read_per_1m', 'other_prices'],
      rows: rows.map((row) => [
        row.name,
        row.vendor,
        row.types.join(' '),
        row.billingMode,
        row.input && per1M(row.input),
        row.output && per1M(row.output),
        row.cacheRead && per1M(row.cacheRead),
        row.other.map((o) => `${o.name}=${o.value}`).join(' '),
      ]),
    }),
    human: () => renderPricing(rows, loaded, ctx),
  });
}

/**
 * Input, output and cache-read prices per 1M tokens, and other prices by their names, in yuan.
 * A catalog repeats its prices (and a cached listing shares its lists of other prices across
 * models): each distinct one is converted and formatted once.
 */
export async function priceCells(): Promise<(row: PriceRow | undefined) => string[]> {
  const { yuan } = await import('../output/money.js');
  const perMillion = memo((per1K: string) => yuan(per1M(per1K)));
  const others = memo((other: PriceRow['other']) => other.map((o) => `${o.name} ${yuan(o.value)}`).join(', '));
  const token = (row: PriceRow, per1K: string) => (row.perToken && per1K !== '' ? perMillion(per1K) : '—');
  return (row) => (row ? [token(row, row.input), token(row, row.output), token(row, row.cacheRead), others(row.other)] : ['—', '—', '—', 'not in the price catalog']);
}

async function renderPricing(rows: PriceRow[], loaded: LoadedCatalog, ctx: Context): Promise<string> {
  const [{ renderTable }, { styleFor }] = await Promise.all([import('../output/table.js'), import('../output/style.js')]);
  const style = await styleFor(ctx);
  const prices = await priceCells();
  const types = memo((list: string[]) => list.join(', '));
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
      rows: rows.map((row) => {
        const price = prices(row);
        return [row.name, row.vendor, types(row.types), price[0]!, price[1]!, price[2]!, price[3]!];
      }),
    },
    style,
  );
  const age = describeAge(ctx.now() - loaded.fetchedAt);
  const note = `${rows.length} of ${loaded.rows.length} models · catalog ${loaded.pricingVersion ?? '(no version)'} · ${loaded.source === 'live' ? 'fetched now' : `cached ${age}`} · prices from service_pricing, yuan per 1M tokens; other prices as the catalog names them`;
  return `${table}${style.paint.dim(note)}\n`;
}

async function showDiff(ctx: Context, loaded: LoadedCatalog): Promise<void> {
  const previous = loaded.previous;
  const changes: CatalogChange[] = previous ? diffCatalogs(previous.records, loaded.records ?? []) : [];
  await emit(ctx, {
    json: {
      pricing_version_before: previous?.pricingVersion ?? null,
      pricing_version_after: loaded.pricingVersion ?? null,
      compared: previous !== undefined,
      changes,
    },
    human: async () => {
      if (!previous) return `No earlier catalog was cached; saved this one (${loaded.rows.length} models, version ${loaded.pricingVersion ?? 'none'}) for the next --diff.\n`;
      if (changes.length === 0) return `No changes since the cached catalog (version ${previous.pricingVersion ?? 'none'} → ${loaded.pricingVersion ?? 'none'}).\n`;
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
