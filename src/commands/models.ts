// tally models: the models this key may call (GET /v1/models), optionally with their prices.
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { ModelListFormat } from '../api/catalog.js';
import { stringList } from '../domain/catalog.js';
import { tokenCount } from '../flags/flag-values.js';
import { type JsonObject, isJsonNumber, numberText } from '../domain/json.js';
import { emit } from '../output/emit.js';
import { type ModelListRequest, type ModelSort, loadModelList } from '../figures/model-list.js';
import { renderModels } from '../output/models.js';
import { PRICE_CSV_HEADER, priceCsv, priceJson } from '../output/prices.js';

interface ModelsOptions {
  format: ModelListFormat;
  prices?: boolean;
  refresh?: boolean;
  offline?: boolean;
  maxAge?: string;
  minContext?: string;
  reasoning?: boolean;
  sort?: ModelSort;
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

export function parse(flags: Record<string, unknown>): ModelListRequest {
  const options = flags as unknown as ModelsOptions;
  if (!options.prices) {
    for (const [flag, value] of [['--refresh', options.refresh], ['--offline', options.offline], ['--max-age', options.maxAge]] as const) {
      if (value !== undefined) throw new UsageError(`${flag} is about the price catalog: it goes with --prices`);
    }
  }
  const minContext = options.minContext === undefined ? undefined : tokenCount(options.minContext, '--min-context', 1);
  if (options.format === 'alt' && (minContext !== undefined || options.reasoning || options.sort === 'context')) {
    throw new UsageError('--min-context, --reasoning and --sort context read the native list\'s context_window and reasoning_efforts; the alt format has neither (leave out --format alt)');
  }
  // Sorting by price needs the prices: they are fetched and shown.
  const prices = options.prices === true || options.sort === 'input' || options.sort === 'output';
  return { ...options, prices, minContext };
}

export async function run(request: ModelListRequest, ctx: Context): Promise<void> {
  const alt = request.format === 'alt';
  const list = await loadModelList(ctx, request);
  const { models, catalog, priceOf } = list;
  const priced = catalog !== undefined;
  const numberCell = (value: unknown) => (isJsonNumber(value) ? numberText(value) : '');
  const csvCells = (m: JsonObject) =>
    alt
      ? [String(m.id), typeof m.created_at === 'string' ? m.created_at : '', typeof m.display_name === 'string' ? m.display_name : '']
      : [String(m.id), numberCell(m.context_window), numberCell(m.max_output_tokens), stringList(m.reasoning_efforts).join(' ')];
  await emit(ctx, {
    // The service's records unchanged; with --prices each carries the catalog prices the table shows.
    json: () => (priced ? models.map((m) => ({ ...m, catalog_prices: priceJson(priceOf(m), catalog.pricingVersion) })) : models),
    csv: () => ({
      header: [...(alt ? ['id', 'created_at', 'display_name'] : ['id', 'context_window', 'max_output_tokens', 'reasoning_efforts']), ...(priced ? PRICE_CSV_HEADER : [])],
      rows: models.map((m) => [...csvCells(m), ...(priced ? priceCsv(priceOf(m)) : [])]),
    }),
    human: () => renderModels(list, ctx),
  });
}

