// Each model's prices and output limit, as the proxy prices a call: from the catalog, kept as every
// command keeps it (figures/price-listing.ts).
import type { Context } from '../context.js';
import type { ModelPrices } from './server.js';

export async function catalogPrices(ctx: Context): Promise<Map<string, ModelPrices>> {
  const { loadCatalog } = await import('../figures/price-listing.js');
  const catalog = await loadCatalog(ctx, {}, { whole: true });
  return new Map(
    catalog.rows.map((row, i) => {
      const record = catalog.records?.[i] as { max_output_tokens?: unknown } | undefined;
      const maxOutput = typeof record?.max_output_tokens === 'number' && Number.isSafeInteger(record.max_output_tokens) ? record.max_output_tokens : undefined;
      return [row.name, { row, maxOutput }] as const;
    }),
  );
}
