// The compatible family: GET /dashboard/billing/subscription, /dashboard/billing/usage and
// /api/usage/token/ (always with the slash; the bare path is a 301). Amounts are JSON numbers:
// *_usd fields hold yuan, total_usage holds fen. Gateways of the family these endpoints come
// from often wrap a record as {"code", "message", "data": {...}}: the record is read from there.
import { type JsonObject, type JsonValue, isJsonNumber, isJsonObject, numberText } from '../domain/json.js';
import { type Decimal, MalformedAmount, fenToYuan, moneyFromNumber } from '../domain/money.js';
import type { HttpClient } from './http.js';
import { serviceMessage } from './http.js';
import { ServiceError } from '../errors.js';

export interface CompatibleBilling {
  /** The three responses exactly as sent (a wrapper included). */
  subscription: JsonObject;
  usage: JsonObject;
  token: JsonObject;
  softLimit: Decimal;
  hardLimit: Decimal | undefined;
  systemHardLimit: Decimal | undefined;
  /** total_usage, in fen as sent. */
  usageFen: Decimal;
  usageYuan: Decimal;
  /** soft_limit_usd - total_usage / 100, in yuan. */
  remaining: Decimal;
  /** The token record's amounts (names not published), in credits = yuan. */
  tokenAmounts: { name: string; amount: Decimal }[];
  /** The token record's times (expiry and the like) as sent: 0 and -1 mean never. */
  tokenTimes: { name: string; value: JsonValue }[];
  /** The token record says its quota is unlimited (its amounts then mean nothing). */
  unlimited: boolean;
  tokenCurrency: string | undefined;
  tokenName: string | undefined;
  modelGroups: string[];
}

const TIME_NAME = /(^|_)(at|time|timestamp|date|expires?|expiry|until)(_|$)|At$/i;
const WRAPPER_KEYS = new Set(['code', 'message', 'msg', 'success', 'data', 'object']);

/**
 * The record inside `{"code", "message", "data": {...}}` (only those keys), or the body itself.
 * A wrapper without a record, or one that says it failed, is the service's error.
 */
export function unwrapRecord(body: JsonObject, path: string, host: string): JsonObject {
  const keys = Object.keys(body);
  if (!('data' in body) || !keys.every((k) => WRAPPER_KEYS.has(k))) return body;
  if (isJsonObject(body.data) && body.success !== false) return body.data;
  const said = serviceMessage(body) ?? (typeof body.msg === 'string' ? body.msg : undefined);
  throw new ServiceError(`${host} reported an error for ${path}${body.code !== undefined ? ` (code ${isJsonNumber(body.code) ? numberText(body.code) : JSON.stringify(body.code)})` : ''}${said ? `: ${said}` : ': no record in its answer'}`);
}

async function getRecord(client: HttpClient, path: string): Promise<{ body: JsonObject; record: JsonObject }> {
  const { body } = await client.requestJson({ path, family: 'compat', auth: 'api-key' });
  if (!isJsonObject(body)) throw client.unexpected(`${path} did not answer a JSON object`);
  return { body, record: unwrapRecord(body, path, client.host) };
}

export async function fetchCompatibleBilling(client: HttpClient): Promise<CompatibleBilling> {
  const [subscription, usage, token] = await Promise.all([
    getRecord(client, '/dashboard/billing/subscription'),
    getRecord(client, '/dashboard/billing/usage'),
    getRecord(client, '/api/usage/token/'),
  ]);
  try {
    return readCompatibleBilling(subscription, usage, token);
  } catch (error) {
    if (error instanceof MalformedAmount) throw client.unexpected(error.message);
    throw error;
  }
}

type Fetched = { body: JsonObject; record: JsonObject };

export function readCompatibleBilling(subscription: Fetched, usage: Fetched, token: Fetched): CompatibleBilling {
  const sub = subscription.record;
  const softLimit = moneyFromNumber(sub.soft_limit_usd, 'soft_limit_usd');
  const optional = (field: string) => (sub[field] === undefined || sub[field] === null ? undefined : moneyFromNumber(sub[field], field));
  const usageFen = moneyFromNumber(usage.record.total_usage, 'total_usage');
  const usageYuan = fenToYuan(usageFen);
  const record = token.record;
  // Grant/used/available names are not published: every number is an amount in credits,
  // except those named as times (expires_at and the like).
  const tokenAmounts: CompatibleBilling['tokenAmounts'] = [];
  const tokenTimes: CompatibleBilling['tokenTimes'] = [];
  for (const name of Object.keys(record)) {
    const value = record[name];
    if (TIME_NAME.test(name)) {
      if (value !== null && value !== undefined) tokenTimes.push({ name, value });
    } else if (isJsonNumber(value)) tokenAmounts.push({ name, amount: moneyFromNumber(value, `token.${name}`) });
  }
  const groups = record.model_limits;
  return {
    subscription: subscription.body,
    usage: usage.body,
    token: token.body,
    softLimit,
    hardLimit: optional('hard_limit_usd'),
    systemHardLimit: optional('system_hard_limit_usd'),
    usageFen,
    usageYuan,
    remaining: softLimit.minus(usageYuan),
    tokenAmounts,
    tokenTimes,
    unlimited: record.unlimited_quota === true,
    tokenCurrency: typeof record.currency === 'string' ? record.currency : undefined,
    tokenName: typeof record.name === 'string' ? record.name : undefined,
    modelGroups: Array.isArray(groups) ? groups.map((g) => (typeof g === 'string' ? g : JSON.stringify(g))) : isJsonObject(groups) ? Object.keys(groups) : [],
  };
}
