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
/** Top-level fields of the records themselves: a body with one of them is the record, not a wrapper. */
const RECORD_FIELD = /_usd$|^total_(usage|granted|used|available)$|^(granted|used|available)(_|$)/;

/**
 * The record inside a wrapper, or the body itself. Gateways of this family wrap records as
 * `{"code", "message", "data"}` or `{"success", "message", "data"}`, often with a request id or
 * a timestamp beside them: a body is a wrapper when it has `data` and a `code`, `success`,
 * `message` or `msg`, and no field of the record itself. A wrapper says it succeeded with
 * `success: true`, or a `code` of 0, 200, "ok" or "success" (or neither word, when it says
 * nothing else); anything else is the service's error, whatever `data` holds (a failing wrapper
 * may carry zeroed data, which is never read as figures).
 */
export function unwrapRecord(body: JsonObject, path: string, host: string): JsonObject {
  const keys = Object.keys(body);
  const envelope = 'code' in body || 'success' in body || 'message' in body || 'msg' in body || keys.every((k) => WRAPPER_KEYS.has(k));
  if (!('data' in body) || !envelope || keys.some((k) => RECORD_FIELD.test(k))) return body;
  if (wrapperSucceeded(body) && isJsonObject(body.data)) return body.data;
  const said = serviceMessage(body) ?? (typeof body.msg === 'string' ? body.msg : undefined);
  throw new ServiceError(`${host} reported an error for ${path}${body.code !== undefined ? ` (code ${isJsonNumber(body.code) ? numberText(body.code) : JSON.stringify(body.code)})` : ''}${said ? `: ${said}` : ': no record in its answer'}`);
}

function wrapperSucceeded(body: JsonObject): boolean {
  if (body.success === false) return false;
  if (body.success === true) return true;
  if (body.code === undefined || body.code === null) return true;
  const code = isJsonNumber(body.code) ? numberText(body.code) : typeof body.code === 'string' ? body.code.trim().toLowerCase() : undefined;
  return code === '0' || code === '200' || code === 'ok' || code === 'success';
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
