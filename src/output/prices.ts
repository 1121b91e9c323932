// How catalog prices read, in one place for `pricing` and `models --prices`: yuan per 1M tokens
// for CSV and JSON (exact decimal text) and for tables (formatted once per distinct price).
import type { Context } from '../context.js';
import { type PriceRow, isUnpriced, per1M, shownTokenPrice } from '../domain/catalog.js';
import type { LoadedCatalog, PricingOptions } from '../figures/price-listing.js';
import { describeAge } from '../domain/words.js';
import { escapeControl } from './escape.js';
import { plural } from './window-text.js';
import { memo } from './memo.js';

export const PRICE_CSV_HEADER = ['input_per_1m', 'output_per_1m', 'cache_read_per_1m', 'other_prices'];

/** The prices a table shows, exactly (yuan per 1M tokens, other prices as named), for CSV. */
export function priceCsv(row: PriceRow | undefined): string[] {
  if (!row) return ['', '', '', ''];
  const token = (per1K: string) => {
    const shown = shownTokenPrice(row, per1K);
    return shown === '' ? '' : per1M(shown);
  };
  return [token(row.input), token(row.output), token(row.cacheRead), row.other.map((o) => `${o.name}=${o.value}`).join(' ')];
}

/** The same prices for JSON: decimal strings, null where the table shows none. */
export function priceJson(row: PriceRow | undefined, pricingVersion: string | undefined) {
  if (!row) return null;
  const [input, output, cacheRead] = priceCsv(row);
  const other: Record<string, string> = Object.create(null);
  for (const o of row.other) other[o.name] = o.value;
  return { pricing_version: pricingVersion ?? null, input_per_1m: input || null, output_per_1m: output || null, cache_read_per_1m: cacheRead || null, other };
}

/**
 * Input, output and cache-read prices per 1M tokens, and other prices by their names, in yuan,
 * as unit prices. A catalog repeats its prices (and a cached listing shares its lists of other
 * prices across models): each distinct one is converted and formatted once.
 */
export async function priceCells(exact: boolean): Promise<(row: PriceRow | undefined) => string[]> {
  const { formatAmount } = await import('./money.js');
  const perMillion = memo((per1K: string) => formatAmount(per1M(per1K), 'unit-price', { exact }));
  const others = memo((other: PriceRow['other']) => other.map((o) => `${o.name} ${formatAmount(o.value, 'unit-price', { exact })}`).join(', '));
  const token = (row: PriceRow, per1K: string) => {
    const shown = shownTokenPrice(row, per1K);
    return shown === '' ? '—' : perMillion(shown);
  };
  return (row) => (row ? [token(row, row.input), token(row, row.output), token(row, row.cacheRead), others(row.other)] : ['—', '—', '—', 'not in the price catalog']);
}

export async function renderPricing(rows: PriceRow[], loaded: LoadedCatalog, ctx: Context, options: PricingOptions): Promise<string> {
  const [{ renderTable }, { styleFor }, { fitLines }] = await Promise.all([import('../output/table.js'), import('../output/style.js'), import('../output/wrap.js')]);
  const style = await styleFor(ctx);
  const prices = await priceCells(ctx.options.exact);
  const types = memo((list: string[]) => list.join(', '));
  const table = await renderTable(
    {
      columns: [
        { header: 'model' },
        { header: 'vendor', dropOrder: 3 },
        { header: 'endpoint types', dropOrder: 4 },
        { header: 'input ¥/1M', align: 'decimal' },
        { header: 'output ¥/1M', align: 'decimal' },
        { header: 'cache read ¥/1M', align: 'decimal', dropOrder: 2 },
        { header: 'other prices (¥)', dropOrder: 1 },
      ],
      rows: rows.map((row) => {
        const price = prices(row);
        return [row.name, row.vendor, types(row.types), price[0]!, price[1]!, price[2]!, price[3]!];
      }),
    },
    style,
  );
  const age = describeAge(ctx.now() - loaded.fetchedAt);
  const none = rows.length === 0 && loaded.rows.length > 0 ? `${whatExists(loaded.rows, options)}\n` : '';
  const note = `${none}${rows.length} of ${loaded.rows.length} models · catalog ${escapeControl(loaded.pricingVersion ?? '(no version)')} · ${loaded.source === 'live' ? 'fetched now' : `cached ${age}`} · ${priceSource(rows)}`;
  return `${table}${style.paint.dim(await fitLines(note, style.width))}\n`;
}

/** Where the prices shown come from; never a source the catalog does not have. */
export function priceSource(rows: PriceRow[]): string {
  const unpriced = rows.filter(isUnpriced).length;
  if (rows.length > 0 && unpriced === rows.length) return 'this catalog states no absolute prices (no service_pricing, only ratios, which are not prices): none are shown';
  const source = 'prices from service_pricing, yuan per 1M tokens; other prices (per call, second, image) as the catalog names them';
  return unpriced === 0 ? source : `${source}; no absolute prices for ${plural(unpriced, 'model')}: none shown there`;
}

/** When filters leave nothing: which filter, and what the catalog has for it instead. */
export function whatExists(rows: PriceRow[], options: PricingOptions): string {
  const list = (values: Iterable<string>) => {
    const sorted = [...new Set(values)].filter(Boolean).sort();
    return `${sorted.slice(0, 12).map(escapeControl).join(', ')}${sorted.length > 12 ? `, and ${sorted.length - 12} more` : ''}`;
  };
  const parts: string[] = [];
  if (options.vendor !== undefined) parts.push(`vendors: ${list(rows.map((r) => r.vendor))}`);
  if (options.type !== undefined) parts.push(`endpoint types: ${list(rows.flatMap((r) => r.types))}`);
  if (options.group !== undefined) parts.push(`groups: ${list(rows.flatMap((r) => r.groups))}`);
  if (options.model !== undefined) parts.push(`models such as ${list(rows.slice(0, 5).map((r) => r.name))}`);
  return `no model matches these filters; the catalog has ${parts.join('; ') || `${rows.length} models`}`;
}

