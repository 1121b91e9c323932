// GET /v1/open/usage, /v1/open/usage/models and /v1/open/logs.
import { type JsonObject, type JsonValue, isJsonObject } from '../domain/json.js';
import { type Continuation, type Scope, findContinuation, findRecords, scopeOf } from '../domain/records.js';
import type { UsageWindow } from '../domain/window.js';
import type { HttpClient } from './http.js';

/** What the X-Cache header said: HIT, MISS, absent (null), or something else ('unrecognised'). */
export type CacheState = 'HIT' | 'MISS' | 'unrecognised' | null;

export interface UsagePage {
  buckets: JsonObject[];
  /** undefined when the service sent none. */
  totals: JsonObject | undefined;
  cache: CacheState;
  /** Whose usage this is, when the gateway says. */
  scope: Scope | undefined;
}

/** The X-Cache header, validated: its bytes are never echoed. */
export function cacheState(value: string | undefined): CacheState {
  if (value === undefined) return null;
  const upper = value.trim().toUpperCase();
  return upper === 'HIT' || upper === 'MISS' ? upper : 'unrecognised';
}

export async function fetchUsage(client: HttpClient, bucket: 'hour' | 'day', window: UsageWindow): Promise<UsagePage> {
  const { body, headers } = await client.requestJson({
    path: '/v1/open/usage',
    query: { bucket, start: String(window.start), end: String(window.end) },
    family: 'native',
    auth: 'api-key',
  });
  if (!isJsonObject(body)) throw client.unexpected('usage response is not a JSON object');
  const { buckets, totals } = body;
  if (!Array.isArray(buckets) || !buckets.every(isJsonObject)) throw client.unexpected('usage response has no "buckets" array of objects');
  if (totals !== undefined && totals !== null && !isJsonObject(totals)) throw client.unexpected('usage "totals" is not an object');
  return { buckets: buckets as JsonObject[], totals: isJsonObject(totals) ? totals : undefined, cache: cacheState(headers['x-cache']), scope: scopeOf(body) };
}

export interface RecordPage {
  body: JsonValue;
  recordsKey: string | undefined;
  records: JsonObject[];
  next: Continuation | undefined;
  cache: CacheState;
  scope: Scope | undefined;
}

/** One page of an unpublished record list; params are passed through as given. */
export async function fetchRecordPage(client: HttpClient, path: string, query: Record<string, string>, options: { patient?: true } = {}): Promise<RecordPage> {
  const { body, headers } = await client.requestJson({ path, query, family: 'native', auth: 'api-key', ...options });
  const found = findRecords(body);
  if (!found) throw client.unexpected(`${path} returned no list of records`);
  return { body, recordsKey: found.key, records: found.records, next: findContinuation(body), cache: cacheState(headers['x-cache']), scope: scopeOf(body) };
}
