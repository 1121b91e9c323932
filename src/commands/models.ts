// tally models: the models this key may call (GET /v1/models), optionally with their prices.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { stringList } from '../domain/catalog.js';
import { tokenCount } from '../flags/flag-values.js';
import { type JsonObject, isJsonNumber, numberText } from '../domain/json.js';
import { emit } from '../output/emit.js';
import { type ModelListRequest, loadModelList } from '../figures/model-list.js';
import { renderModels } from '../output/models.js';
import { PRICE_CSV_HEADER, priceCsv, priceJson } from '../output/prices.js';

export const flags = declareFlags({
  format: { kind: 'value', value: 'format', help: 'list format: native (GET /v1/models) or alt (GET /alt/v1/models)', choices: ['native', 'alt'], default: 'native' },
  prices: { kind: 'switch', help: "add each model's catalog prices (from the cached catalog)" },
  refresh: { kind: 'switch', help: 'with --prices: fetch the catalog even when the cached one is fresh' },
  offline: { kind: 'switch', help: 'with --prices: use the cached catalog only' },
  maxAge: { kind: 'value', value: 'seconds', help: 'with --prices: reuse a cached catalog younger than this' },
  minContext: { kind: 'value', value: 'tokens', help: 'only models whose context window holds at least this many tokens' },
  reasoning: { kind: 'switch', help: 'only models that can reason (a reasoning level other than none)' },
  sort: { kind: 'value', value: 'key', help: 'order by name, input or output price (adds --prices), or context window (largest first)', choices: ['name', 'input', 'output', 'context'] },
});

export function parse(options: FlagValues<typeof flags>): ModelListRequest {
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

