// The models a key may call (GET /v1/models or the alternate list), filtered and ordered as
// asked, with the catalog's price of each when asked (the list and the catalog asked together).
import type { Context } from '../context.js';
import { type ModelListFormat, fetchModels } from '../api/catalog.js';
import { type PriceRow, canReason, contextOf } from '../domain/catalog.js';
import { compareDecimalText } from '../domain/decimal-text.js';
import type { JsonObject } from '../domain/json.js';
import { type LoadedCatalog, loadCatalog } from './price-listing.js';

export type ModelSort = 'name' | 'input' | 'output' | 'context';

export interface ModelListRequest {
  format: ModelListFormat;
  prices?: boolean;
  refresh?: boolean;
  offline?: boolean;
  maxAge?: string;
  minContext?: number;
  reasoning?: boolean;
  sort?: ModelSort;
}

export interface ModelList {
  /** Everything the list holds, as sent. */
  listed: JsonObject[];
  /** What the filters keep, in the order asked. */
  models: JsonObject[];
  catalog: LoadedCatalog | undefined;
  priceOf: (m: JsonObject) => PriceRow | undefined;
  alt: boolean;
  minContext: number | undefined;
  reasoning: boolean;
}

export async function loadModelList(ctx: Context, request: ModelListRequest): Promise<ModelList> {
  // The key's list and the catalog are independent: asked together.
  const [listed, catalog] = await Promise.all([fetchModels(await ctx.client(), request.format), request.prices ? loadCatalog(ctx, request, { whole: false }) : undefined]);
  const priced = catalog ? new Map(catalog.rows.map((row) => [row.name, row])) : undefined;
  const priceOf = (m: JsonObject): PriceRow | undefined => priced?.get(String(m.id));
  const reasoning = request.reasoning === true;
  const models = sortModels(filterModels(listed, request.minContext, reasoning), request.sort, priceOf);
  return { listed, models, catalog, priceOf, alt: request.format === 'alt', minContext: request.minContext, reasoning };
}

function filterModels(models: JsonObject[], minContext: number | undefined, reasoning: boolean): JsonObject[] {
  return models.filter((m) => (minContext === undefined || contextOf(m) >= minContext) && (!reasoning || canReason(m)));
}

/** The list sorted as asked (the service's order, by name, otherwise); models without the figure go last. */
function sortModels(models: JsonObject[], key: ModelSort | undefined, priceOf: (m: JsonObject) => PriceRow | undefined): JsonObject[] {
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

