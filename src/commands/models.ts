// tally models: the models this key may call (GET /v1/models), optionally with their prices.
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { type ModelListFormat, fetchModels } from '../api/catalog.js';
import { reasoningLabel, stringList } from '../domain/catalog.js';
import { type JsonObject, isJsonNumber, numberText } from '../domain/json.js';
import { emit } from '../output/emit.js';
import { loadCatalog } from './catalog-source.js';
import { priceCells } from './pricing.js';

interface ModelsOptions {
  format: ModelListFormat;
  prices?: boolean;
  refresh?: boolean;
  offline?: boolean;
  maxAge?: string;
}

export function configure(command: Command): void {
  command
    .addOption(new Option('--format <format>', 'list format: native (GET /v1/models) or alt (GET /alt/v1/models)').choices(['native', 'alt']).default('native'))
    .option('--prices', 'add each model\'s catalog prices (from the cached catalog)')
    .option('--refresh', 'with --prices: fetch the catalog even when the cached one is fresh')
    .option('--offline', 'with --prices: use the cached catalog only')
    .option('--max-age <seconds>', 'with --prices: reuse a cached catalog younger than this');
}

function count(value: unknown): string {
  if (!isJsonNumber(value)) return '—';
  const text = numberText(value);
  return text === '0' ? '—' : text.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export async function run(raw: Record<string, unknown>, ctx: Context): Promise<void> {
  const options = raw as unknown as ModelsOptions;
  const models = await fetchModels(await ctx.client(), options.format);
  const catalog = options.prices ? await loadCatalog(ctx, options, { whole: false }) : undefined;
  const priced = catalog ? new Map(catalog.rows.map((row) => [row.name, row])) : undefined;
  const alt = options.format === 'alt';
  const header = alt ? ['id', 'created_at', 'display_name'] : ['id', 'context_window', 'max_output_tokens', 'reasoning'];
  const cells = (m: JsonObject) =>
    alt
      ? [String(m.id), typeof m.created_at === 'string' ? m.created_at : '', typeof m.display_name === 'string' ? m.display_name : '']
      : [String(m.id), count(m.context_window), count(m.max_output_tokens), reasoningLabel(stringList(m.reasoning_efforts))];
  await emit(ctx, {
    json: models,
    csv: () => ({
      header: alt ? header : ['id', 'context_window', 'max_output_tokens', 'reasoning_efforts'],
      rows: models.map((m) => (alt ? cells(m) : [String(m.id), isJsonNumber(m.context_window) ? numberText(m.context_window) : '', isJsonNumber(m.max_output_tokens) ? numberText(m.max_output_tokens) : '', stringList(m.reasoning_efforts).join(' ')])),
    }),
    human: async () => {
      const [{ renderTable }, { styleFor }] = await Promise.all([import('../output/table.js'), import('../output/style.js')]);
      const style = await styleFor(ctx);
      const prices = priced && (await priceCells());
      const columns = [
        { header: 'model' },
        ...(alt
          ? [{ header: 'created', dropOrder: 2 }, { header: 'display name', dropOrder: 3 }]
          : [{ header: 'context', align: 'right' as const, dropOrder: 3 }, { header: 'max output', align: 'right' as const, dropOrder: 4 }, { header: 'reasoning', dropOrder: 5 }]),
        ...(priced ? [{ header: 'input ¥/1M', align: 'right' as const }, { header: 'output ¥/1M', align: 'right' as const }, { header: 'cache read ¥/1M', align: 'right' as const, dropOrder: 6 }, { header: 'other prices (¥)', dropOrder: 7 }] : []),
      ];
      const rows = models.map((m) => (prices ? [...cells(m), ...prices(priced.get(String(m.id)))] : cells(m)));
      const note = `${models.length} model${models.length === 1 ? '' : 's'} this key may call${catalog ? ` · prices from catalog ${catalog.pricingVersion ?? ''} (${catalog.source === 'live' ? 'fetched now' : 'cached'})` : ''}`;
      return `${await renderTable({ columns, rows }, style)}${style.paint.dim(note)}\n`;
    },
  });
}
