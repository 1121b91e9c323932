// How catalog prices read, in one place for `pricing` and `models --prices`: yuan per 1M tokens
// for CSV and JSON (exact decimal text) and for tables (formatted once per distinct price).
import { type PriceRow, per1M, shownTokenPrice } from '../domain/catalog.js';
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
