// The compatible family: GET /dashboard/billing/subscription, /dashboard/billing/usage and
// /api/usage/token/ (always with the slash; the bare path is a 301). Amounts are JSON numbers:
// *_usd fields hold yuan, total_usage holds fen.
import { type JsonObject, isJsonNumber, isJsonObject, numberText } from '../domain/json.js';
import { type Decimal, MalformedAmount, fenToYuan, moneyFromNumber } from '../domain/money.js';
import type { HttpClient } from './http.js';

export interface CompatibleBilling {
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
  /** The token record's numeric fields (names not published), in credits = yuan. */
  tokenAmounts: { name: string; amount: Decimal }[];
  /** Other fields of the token record worth showing as they are (expiry and the like). */
  tokenOther: { name: string; value: string }[];
  tokenCurrency: string | undefined;
  modelGroups: string[];
}

const TIME_NAME = /(^|_)(at|time|timestamp|date|expires?|expiry)(_|$)|At$/i;

async function getRecord(client: HttpClient, path: string): Promise<JsonObject> {
  const { body } = await client.requestJson({ path, family: 'compat', auth: 'api-key' });
  if (!isJsonObject(body)) throw client.unexpected(`${path} did not answer a JSON object`);
  return body;
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

export function readCompatibleBilling(subscription: JsonObject, usage: JsonObject, token: JsonObject): CompatibleBilling {
  const softLimit = moneyFromNumber(subscription.soft_limit_usd, 'soft_limit_usd');
  const optional = (field: string) => (subscription[field] === undefined ? undefined : moneyFromNumber(subscription[field], field));
  const usageFen = moneyFromNumber(usage.total_usage, 'total_usage');
  const usageYuan = fenToYuan(usageFen);
  // Grant/used/available names are not published: every number is an amount in credits,
  // except those named as times (expires_at and the like).
  const tokenAmounts = Object.entries(token)
    .filter(([name, value]) => isJsonNumber(value) && !TIME_NAME.test(name))
    .map(([name, value]) => ({ name, amount: moneyFromNumber(value, `token.${name}`) }));
  const groups = token.model_limits;
  return {
    subscription,
    usage,
    token,
    softLimit,
    hardLimit: optional('hard_limit_usd'),
    systemHardLimit: optional('system_hard_limit_usd'),
    usageFen,
    usageYuan,
    remaining: softLimit.minus(usageYuan),
    tokenAmounts,
    tokenOther: Object.entries(token)
      .filter(([name, value]) => TIME_NAME.test(name) && (isJsonNumber(value) || typeof value === 'string'))
      .map(([name, value]) => ({ name, value: isJsonNumber(value) ? numberText(value) : String(value) })),
    tokenCurrency: typeof token.currency === 'string' ? token.currency : undefined,
    modelGroups: Array.isArray(groups)
      ? groups.map((g) => (typeof g === 'string' ? g : JSON.stringify(g)))
      : isJsonObject(groups) ? Object.keys(groups) : [],
  };
}
