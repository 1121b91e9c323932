// The compatible family: GET /dashboard/billing/subscription, /dashboard/billing/usage and
// /api/usage/token/ (always with the slash; the bare path is a 301). Amounts are JSON numbers:
// *_usd fields hold yuan, total_usage holds fen. Gateways of the family wrap a record as
// {"code", "message", "data": {...}} (code true, 0, 200, "ok"...) or {"success", "data"}: the
// record is read from there. Real gateways of the family send the token record in raw quota
// units with no currency, mark an unlimited key's limits with 100000000, and some have no token
// endpoint at all: each record is read on its own, and what was not read is said.
import { type JsonObject, type JsonValue, isJsonNumber, isJsonObject, numberText } from '../domain/json.js';
import { Decimal, MalformedAmount, fenToYuan, moneyFromNumber } from '../domain/money.js';
import type { HttpClient } from './http.js';
import { serviceMessage } from './http.js';
import { ServiceError, TallyError } from '../errors.js';

export const SUBSCRIPTION_PATH = '/dashboard/billing/subscription';
export const USAGE_PATH = '/dashboard/billing/usage';
export const TOKEN_PATH = '/api/usage/token/';

/** What real gateways of the family put in an unlimited key's subscription limits: a marker, not an amount. */
const UNLIMITED_MARKER = new Decimal(100_000_000);

export interface Subscription {
  /** The response exactly as sent (a wrapper included). */
  body: JsonObject;
  softLimit: Decimal;
  hardLimit: Decimal | undefined;
  systemHardLimit: Decimal | undefined;
  /** The limits hold the unlimited marker (100000000): there is no limit to show. */
  unlimited: boolean;
}

export interface UsageRecord {
  body: JsonObject;
  /** total_usage, in fen as sent. */
  fen: Decimal;
  yuan: Decimal;
}

export interface TokenRecord {
  body: JsonObject;
  /** Every amount (names not published), in the record's unit. */
  amounts: { name: string; amount: Decimal }[];
  /** Times (expiry and the like) as sent: 0 and -1 mean never. */
  times: { name: string; value: JsonValue }[];
  /** The record says its quota is unlimited (its amounts then mean nothing). */
  unlimited: boolean;
  /** The unit the record states (`currency`); undefined when it states none (raw quota units on real gateways). */
  currency: string | undefined;
  name: string | undefined;
  /** Model groups (the spec) or model names (real gateways) the key may use. */
  modelLimits: string[];
  /** What the key may still spend: the available amount, else granted − used; undefined when the record says neither. */
  available: Decimal | undefined;
  granted: Decimal | undefined;
  used: Decimal | undefined;
}

export interface MissingRecord {
  path: string;
  error: TallyError;
}

export interface CompatibleBilling {
  subscription: Subscription | undefined;
  usage: UsageRecord | undefined;
  token: TokenRecord | undefined;
  /** The records that could not be read, each with why. */
  missing: MissingRecord[];
  /** soft_limit_usd − total_usage / 100, in yuan; undefined when either is missing or the limit is the unlimited marker. */
  remaining: Decimal | undefined;
}

const TIME_NAME = /(^|_)(at|time|timestamp|date|expires?|expiry|until)(_|$)|At$/i;
const WRAPPER_KEYS = new Set(['code', 'message', 'msg', 'success', 'data', 'object']);
/** Top-level fields of the records themselves: a body with one of them is the record, not a wrapper. */
const RECORD_FIELD = /_usd$|^total_(usage|granted|used|available)$|^(granted|used|available)(_|$)/;

/**
 * The record inside a wrapper, or the body itself. A body is a wrapper when it has `data` and a
 * `code`, `success`, `message` or `msg`, and no field of the record itself. A wrapper says it
 * succeeded with a success flag read as the gateway means it: `success: true`, or a `code` of
 * true, 0, 200, "ok" or "success" (or no code at all); false, another number or word, or
 * `success: false` is the service's error, whatever `data` holds (a failing wrapper may carry
 * zeroed data, which is never read as figures).
 */
export function unwrapRecord(body: JsonObject, path: string, host: string): JsonObject {
  const keys = Object.keys(body);
  const envelope = 'code' in body || 'success' in body || 'message' in body || 'msg' in body || keys.every((k) => WRAPPER_KEYS.has(k));
  const recordFields = keys.some((k) => RECORD_FIELD.test(k));
  if (!('data' in body) || !envelope || recordFields) {
    // A failure flag is a failure, data or not: `{"code": false, "message": …}` is no empty record.
    if (body.success === false || (!recordFields && ('code' in body || 'success' in body) && !wrapperSucceeded(body))) throw wrapperError(body, path, host);
    return body;
  }
  if (wrapperSucceeded(body) && isJsonObject(body.data)) return body.data;
  throw wrapperError(body, path, host);
}

function wrapperError(body: JsonObject, path: string, host: string): ServiceError {
  const said = serviceMessage(body) ?? (typeof body.msg === 'string' ? body.msg : undefined);
  const code = body.code === undefined ? '' : ` (code ${isJsonNumber(body.code) ? numberText(body.code) : JSON.stringify(body.code)})`;
  return new ServiceError(`${host} reported an error for ${path}${code}${said ? `: ${said}` : ': no record in its answer'}`);
}

/** A success flag as the gateway means it: a boolean, a number or a word. */
export function wrapperSucceeded(body: JsonObject): boolean {
  if (body.success === false) return false;
  if (body.success === true) return body.code === undefined || body.code === null || codeSucceeded(body.code);
  if (body.code === undefined || body.code === null) return true;
  return codeSucceeded(body.code);
}

function codeSucceeded(code: JsonValue): boolean {
  if (typeof code === 'boolean') return code;
  const text = isJsonNumber(code) ? numberText(code) : typeof code === 'string' ? code.trim().toLowerCase() : undefined;
  return text === '0' || text === '200' || text === 'ok' || text === 'success' || text === 'true';
}

type Fetched = { body: JsonObject; record: JsonObject };

async function getRecord(client: HttpClient, path: string): Promise<Fetched> {
  // Real gateways limit the token endpoint to about 20 requests in 20 minutes: a 429 there is not retried.
  const { body } = await client.requestJson({ path, family: 'compat', auth: 'api-key', ...(path === TOKEN_PATH ? { retryRateLimit: false as const } : {}) });
  if (!isJsonObject(body)) throw client.unexpected(`${path} did not answer a JSON object`);
  return { body, record: unwrapRecord(body, path, client.host) };
}

/** Reads a record with `read`, turning a malformed amount into the service's error. */
async function fetchRecord<T>(client: HttpClient, path: string, read: (fetched: Fetched) => T): Promise<T> {
  const fetched = await getRecord(client, path);
  try {
    return read(fetched);
  } catch (error) {
    if (error instanceof MalformedAmount) throw client.unexpected(error.message);
    throw error;
  }
}

export function fetchTokenRecord(client: HttpClient): Promise<TokenRecord> {
  return fetchRecord(client, TOKEN_PATH, readTokenRecord);
}

/**
 * The three records, each read on its own: one that is missing (404) or fails is named in
 * `missing` and the others are kept. Only when none could be read does this throw (the first
 * failure, so a rejected credential is still exit 3); Ctrl-C always ends it.
 */
export async function fetchCompatibleBilling(client: HttpClient): Promise<CompatibleBilling> {
  const paths = [SUBSCRIPTION_PATH, USAGE_PATH, TOKEN_PATH] as const;
  const settled = await Promise.allSettled([
    fetchRecord(client, SUBSCRIPTION_PATH, readSubscription),
    fetchRecord(client, USAGE_PATH, readUsageRecord),
    fetchRecord(client, TOKEN_PATH, readTokenRecord),
  ]);
  const missing: MissingRecord[] = [];
  settled.forEach((outcome, i) => {
    if (outcome.status === 'fulfilled') return;
    const error = outcome.reason;
    if (!(error instanceof TallyError) || error.kind === 'interrupted') throw error;
    missing.push({ path: paths[i]!, error });
  });
  if (missing.length === paths.length) throw missing[0]!.error;
  const value = <T>(outcome: PromiseSettledResult<T>) => (outcome.status === 'fulfilled' ? outcome.value : undefined);
  const subscription = value(settled[0]);
  const usage = value(settled[1]);
  return {
    subscription,
    usage,
    token: value(settled[2]),
    missing,
    remaining: subscription && usage && !subscription.unlimited ? subscription.softLimit.minus(usage.yuan) : undefined,
  };
}

export function readSubscription({ body, record }: Fetched): Subscription {
  const softLimit = moneyFromNumber(record.soft_limit_usd, 'soft_limit_usd');
  const optional = (field: string) => (record[field] === undefined || record[field] === null ? undefined : moneyFromNumber(record[field], field));
  const hardLimit = optional('hard_limit_usd');
  const systemHardLimit = optional('system_hard_limit_usd');
  return { body, softLimit, hardLimit, systemHardLimit, unlimited: softLimit.eq(UNLIMITED_MARKER) };
}

export function readUsageRecord({ body, record }: Fetched): UsageRecord {
  const fen = moneyFromNumber(record.total_usage, 'total_usage');
  return { body, fen, yuan: fenToYuan(fen) };
}

const AVAILABLE = /avail|remain|left|balance/i;
const USED = /used|usage|spent|consum/i;
const GRANTED = /grant|allot|allowance|quota|limit|total/i;

export function readTokenRecord({ body, record }: Fetched): TokenRecord {
  // Grant/used/available names are not published: every number is an amount, except those
  // named as times (expires_at and the like) and flags.
  const amounts: TokenRecord['amounts'] = [];
  const times: TokenRecord['times'] = [];
  for (const name of Object.keys(record)) {
    const value = record[name];
    if (TIME_NAME.test(name)) {
      if (value !== null && value !== undefined) times.push({ name, value });
    } else if (isJsonNumber(value)) amounts.push({ name, amount: moneyFromNumber(value, `token.${name}`) });
  }
  const find = (pattern: RegExp, ...not: RegExp[]) => amounts.find((a) => pattern.test(a.name) && !not.some((n) => n.test(a.name)))?.amount;
  const used = find(USED, AVAILABLE);
  const granted = find(GRANTED, AVAILABLE, USED);
  const available = find(AVAILABLE) ?? (granted && used ? granted.minus(used) : undefined);
  const limits = record.model_limits;
  const currency = record.currency;
  return {
    body,
    amounts,
    times,
    unlimited: record.unlimited_quota === true,
    currency: typeof currency === 'string' && /^[A-Z]{3}$/.test(currency) ? currency : undefined,
    name: typeof record.name === 'string' ? record.name : undefined,
    modelLimits: Array.isArray(limits) ? limits.map((g) => (typeof g === 'string' ? g : JSON.stringify(g))) : isJsonObject(limits) ? Object.keys(limits) : [],
    available,
    granted,
    used,
  };
}
