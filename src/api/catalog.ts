// GET /api/pricing (public: no credential) and the model lists GET /v1/models, /alt/v1/models.
import { type JsonObject, type JsonValue, isJsonObject } from '../domain/json.js';
import type { HttpClient, JsonRequest } from './http.js';
import { learnVendors } from '../domain/catalog.js';

export interface Catalog {
  pricingVersion: string | undefined;
  /** The whole response as received (numbers exact). */
  body: JsonObject;
  models: JsonObject[];
}

/** A catalog from the service, with its bytes exactly as received (what the cache keeps). */
export interface FetchedCatalog extends Catalog {
  bytes: Buffer;
}

const CATALOG_REQUEST: JsonRequest = { path: '/api/pricing', family: 'catalog', auth: 'none' };

/**
 * The catalog; `unchanged` (with its bytes) when `isCached` says the service sent exactly the
 * bytes cached before. `isCached` is asked once the bytes are in, before they are parsed.
 */
export async function fetchCatalog(client: HttpClient, isCached: (bytes: Buffer) => boolean): Promise<FetchedCatalog | { unchanged: Buffer }> {
  const response = await client.requestJsonUnlessKnown(CATALOG_REQUEST, isCached);
  if ('unchanged' in response) return { unchanged: response.bytes };
  return { ...readCatalog(response.body, (detail) => client.unexpected(detail)), bytes: response.bytes };
}

/** Checks a catalog (from the wire or the cache). */
export function readCatalog(body: JsonValue, fail: (detail: string) => Error): Catalog {
  if (!isJsonObject(body)) throw fail('the price catalog is not a JSON object');
  const { data } = body;
  if (!Array.isArray(data) || !data.every((r) => isJsonObject(r) && typeof r.model_name === 'string')) {
    throw fail('the price catalog has no "data" array of records with a model_name');
  }
  // Gateways of the compatible family may put the version on the first record instead of the top.
  const version = body.pricing_version ?? (data[0] as JsonObject | undefined)?.pricing_version;
  learnVendors(body, data as JsonObject[]);
  return {
    pricingVersion: typeof version === 'string' ? version : undefined,
    body,
    models: data as JsonObject[],
  };
}

export type ModelListFormat = 'native' | 'alt';

export async function fetchModels(client: HttpClient, format: ModelListFormat): Promise<JsonObject[]> {
  const path = format === 'alt' ? '/alt/v1/models' : '/v1/models';
  const { body } = await client.requestJson({ path, family: 'models', auth: 'api-key' });
  if (!isJsonObject(body) || !Array.isArray(body.data)) throw client.unexpected(`${path} has no "data" array`);
  if (!body.data.every((m) => isJsonObject(m) && typeof m.id === 'string')) throw client.unexpected(`${path} lists a model without an id`);
  return body.data as JsonObject[];
}
