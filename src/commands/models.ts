// tally models: the models this key may call (GET /v1/models), optionally with their prices.
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { escapeControl } from '../output/escape.js';
import { UsageError } from '../errors.js';
import { type ModelListFormat, fetchModels } from '../api/catalog.js';
import { type PriceRow, reasoningLabel, stringList } from '../domain/catalog.js';
import { compareDecimalText } from '../domain/decimal-text.js';
import { tokenCount } from '../cli/flag-values.js';
import { type JsonObject, isJsonNumber, numberText } from '../domain/json.js';
import { emit } from '../output/emit.js';
import { loadCatalog } from '../figures/price-listing.js';
import { PRICE_CSV_HEADER, priceCells, priceCsv, priceJson } from '../output/prices.js';

interface ModelsOptions {
  format: ModelListFormat;
  prices?: boolean;
  refresh?: boolean;
  offline?: boolean;
  maxAge?: string;
  minContext?: string;
  reasoning?: boolean;
  sort?: 'name' | 'input' | 'output' | 'context';
}

export function configure(command: Command): void {
  command
    .addOption(new Option('--format <format>', 'list format: native (GET /v1/models) or alt (GET /alt/v1/models)').choices(['native', 'alt']).default('native'))
    .option('--prices', "add each model's catalog prices (from the cached catalog)")
    .option('--refresh', 'with --prices: fetch the catalog even when the cached one is fresh')
    .option('--offline', 'with --prices: use the cached catalog only')
    .option('--max-age <seconds>', 'with --prices: reuse a cached catalog younger than this')
    .option('--min-context <tokens>', 'only models whose context window holds at least this many tokens')
    .option('--reasoning', 'only models that can reason (a reasoning level other than none)')
    .addOption(new Option('--sort <key>', 'order by name, input or output price (adds --prices), or context window (largest first)').choices(['name', 'input', 'output', 'context']));
}

export async function run(raw: Record<string, unknown>, ctx: Context): Promise<void> {
  const options = raw as unknown as ModelsOptions;
  if (!options.prices) {
    for (const [flag, value] of [['--refresh', options.refresh], ['--offline', options.offline], ['--max-age', options.maxAge]] as const) {
      if (value !== undefined) throw new UsageError(`${flag} is about the price catalog: it goes with --prices`);
    }
  }
  const alt = options.format === 'alt';
  const minContext = options.minContext === undefined ? undefined : tokenCount(options.minContext, '--min-context', 1);
  if (alt && (minContext !== undefined || options.reasoning || options.sort === 'context')) {
    throw new UsageError('--min-context, --reasoning and --sort context read the native list\'s context_window and reasoning_efforts; the alt format has neither (leave out --format alt)');
  }
  // Sorting by price needs the prices: they are fetched and shown.
  if (options.sort === 'input' || options.sort === 'output') options.prices = true;
  // The key's list and the catalog are independent: asked together.
  const [listed, catalog] = await Promise.all([fetchModels(await ctx.client(), options.format), options.prices ? loadCatalog(ctx, options, { whole: false }) : undefined]);
  const priced = catalog ? new Map(catalog.rows.map((row) => [row.name, row])) : undefined;
  const priceOf = (m: JsonObject): PriceRow | undefined => priced?.get(String(m.id));
  const models = sortModels(filterModels(listed, minContext, options.reasoning === true), options.sort, priceOf);
  const numberCell = (value: unknown) => (isJsonNumber(value) ? numberText(value) : '');
  const csvCells = (m: JsonObject) =>
    alt
      ? [String(m.id), typeof m.created_at === 'string' ? m.created_at : '', typeof m.display_name === 'string' ? m.display_name : '']
      : [String(m.id), numberCell(m.context_window), numberCell(m.max_output_tokens), stringList(m.reasoning_efforts).join(' ')];
  await emit(ctx, {
    // The service's records unchanged; with --prices each carries the catalog prices the table shows.
    json: () => (priced ? models.map((m) => ({ ...m, catalog_prices: priceJson(priceOf(m), catalog!.pricingVersion) })) : models),
    csv: () => ({
      header: [...(alt ? ['id', 'created_at', 'display_name'] : ['id', 'context_window', 'max_output_tokens', 'reasoning_efforts']), ...(priced ? PRICE_CSV_HEADER : [])],
      rows: models.map((m) => [...csvCells(m), ...(priced ? priceCsv(priceOf(m)) : [])]),
    }),
    human: async () => {
      const [{ renderTable }, { styleFor }, { formatCount }, { fitLines }] = await Promise.all([import('../output/table.js'), import('../output/style.js'), import('../output/money.js'), import('../output/wrap.js')]);
      const style = await styleFor(ctx);
      const prices = priced && (await priceCells(ctx.options.exact));
      const count = (value: unknown) => (isJsonNumber(value) && numberText(value) !== '0' ? formatCount(numberText(value)) : '—');
      const cells = (m: JsonObject) =>
        alt
          ? [String(m.id), typeof m.created_at === 'string' ? m.created_at : '', typeof m.display_name === 'string' ? m.display_name : '']
          : [String(m.id), count(m.context_window), count(m.max_output_tokens), reasoningLabel(stringList(m.reasoning_efforts))];
      const columns = [
        { header: 'model' },
        ...(alt
          ? [{ header: 'created', dropOrder: 6 }, { header: 'display name', dropOrder: 7 }]
          : [{ header: 'context', align: 'decimal' as const, dropOrder: 5 }, { header: 'max output', align: 'decimal' as const, dropOrder: 6 }, { header: 'reasoning', dropOrder: 7 }]),
        ...(priced
          ? [
              { header: 'input ¥/1M', align: 'decimal' as const, dropOrder: 4 },
              { header: 'output ¥/1M', align: 'decimal' as const, dropOrder: 3 },
              { header: 'cache read ¥/1M', align: 'decimal' as const, dropOrder: 8 },
              // Per call, second or image: the only price some models have, so it goes last.
              { header: 'other prices (¥)', dropOrder: 2 },
            ]
          : []),
      ];
      const rows = models.map((m) => (prices ? [...cells(m), ...prices(priceOf(m))] : cells(m)));
      const filtered = models.length < listed.length;
      const counted = models.length === 0 && filtered ? whyNone(listed, minContext, options.reasoning === true) : `${filtered ? `${models.length} of ${listed.length}` : models.length} model${listed.length === 1 ? '' : 's'} this key may call`;
      const note = `${counted}${catalog ? ` · prices from catalog ${escapeControl(catalog.pricingVersion ?? '(no version)')} (${catalog.source === 'live' ? 'fetched now' : 'cached'}), yuan per 1M tokens` : ''}`;
      return `${await renderTable({ columns, rows }, style)}${style.paint.dim(await fitLines(note, style.width))}\n`;
    },
  });
}

const contextOf = (m: JsonObject): number => (isJsonNumber(m.context_window) ? Number(numberText(m.context_window)) : 0);
const canReason = (m: JsonObject): boolean => stringList(m.reasoning_efforts).some((level) => level !== 'none');

function filterModels(models: JsonObject[], minContext: number | undefined, reasoning: boolean): JsonObject[] {
  return models.filter((m) => (minContext === undefined || contextOf(m) >= minContext) && (!reasoning || canReason(m)));
}

/** The list sorted as asked (the service's order, by name, otherwise); models without the figure go last. */
function sortModels(models: JsonObject[], key: ModelsOptions['sort'], priceOf: (m: JsonObject) => PriceRow | undefined): JsonObject[] {
  if (key === undefined) return models;
  const name = (m: JsonObject) => String(m.id);
  const byName = (a: JsonObject, b: JsonObject) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);
  if (key === 'name') return [...models].sort(byName);
  if (key === 'context') return [...models].sort((a, b) => contextOf(b) - contextOf(a) || byName(a, b));
  const price = (m: JsonObject) => {
    const row = priceOf(m);
    const text = key === 'input' ? row?.input : row?.output;
    return row?.perToken && text ? text : undefined;
  };
  return [...models].sort((a, b) => {
    const [x, y] = [price(a), price(b)];
    if (x === undefined || y === undefined) return x === y ? byName(a, b) : x === undefined ? 1 : -1;
    return compareDecimalText(x, y) || byName(a, b);
  });
}

/** Why a filter left nothing, and what there is instead. */
function whyNone(models: JsonObject[], minContext: number | undefined, reasoning: boolean): string {
  const asked = [minContext !== undefined && `a context of at least ${minContext.toLocaleString('en-US')} tokens`, reasoning && 'reasoning'].filter(Boolean).join(' and ');
  const largest = Math.max(0, ...models.filter((m) => !reasoning || canReason(m)).map(contextOf));
  const reasoners = models.filter(canReason).length;
  const facts = [`the largest context${reasoning ? ' of a reasoning model' : ''} is ${largest.toLocaleString('en-US')} tokens`, `${reasoners} of the ${models.length} can reason`];
  return `no model this key may call has ${asked}: ${facts.join('; ')}`;
}
