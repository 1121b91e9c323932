// GET /v1/open/balance: balance, plan state and the calling key's daily limit.
import { type JsonObject, isJsonObject } from '../domain/json.js';
import { type Decimal, MalformedAmount, moneyFromString } from '../domain/money.js';
import type { HttpClient } from './http.js';

export interface KeyLimit {
  name: string | undefined;
  prefix: string | undefined;
  /** Undefined when the service sends no daily limit for the key. */
  dailyLimit: Decimal | undefined;
  dailyUsed: Decimal | undefined;
}

/**
 * The balance record as readBalance checked it (`raw`, printed exactly as sent by --json, unknown
 * fields kept): the published fields others read from the document.
 */
export interface BalanceDocument {
  currency: string;
  balance: string;
  lifetime_spend: string;
  plan: { has_active_plan: boolean };
  api_key: { daily_cost_limit?: string | null; daily_cost_used?: string | null } | null;
}

/** The record as sent, typed by what readBalance checked in it. */
export function balanceDocument(balance: Balance): BalanceDocument {
  return balance.raw as unknown as BalanceDocument;
}

export interface Balance {
  /** The response exactly as received, for --json. */
  raw: JsonObject;
  currency: string;
  balance: Decimal;
  lifetimeSpend: Decimal;
  hasActivePlan: boolean;
  plan: JsonObject;
  /** null when the caller signed in with a device token (no key-level limit). */
  apiKey: KeyLimit | null;
}

export async function fetchBalance(client: HttpClient): Promise<Balance> {
  const { body } = await client.requestJson({ path: '/v1/open/balance', family: 'native', auth: 'any' });
  try {
    return readBalance(body);
  } catch (error) {
    if (error instanceof MalformedAmount || error instanceof TypeError) throw client.unexpected(error.message);
    throw error;
  }
}

export function readBalance(body: unknown): Balance {
  if (!isJsonObject(body)) throw new TypeError('balance response is not a JSON object');
  const { currency, plan } = body;
  if (typeof currency !== 'string' || currency === '') throw new TypeError('balance response has no currency');
  // An ISO 4217 code: anything else is not a currency (and never reaches a terminal as one).
  if (!/^[A-Z]{3}$/.test(currency)) throw new TypeError(`currency is not a currency code (got ${JSON.stringify(currency).slice(0, 40)})`);
  if (!isJsonObject(plan)) throw new TypeError('balance response has no plan object');
  if (typeof plan.has_active_plan !== 'boolean') throw new TypeError('plan.has_active_plan is not a boolean');
  const key = body.api_key;
  if (key !== null && !isJsonObject(key)) throw new TypeError('api_key is neither an object nor null');
  return {
    raw: body,
    currency,
    balance: moneyFromString(body.balance, 'balance'),
    lifetimeSpend: moneyFromString(body.lifetime_spend, 'lifetime_spend'),
    hasActivePlan: plan.has_active_plan,
    plan,
    apiKey: key === null ? null : readKey(key),
  };
}

function readKey(key: JsonObject): KeyLimit {
  const optionalMoney = (field: string) => {
    const value = key[field];
    return value === undefined || value === null ? undefined : moneyFromString(value, `api_key.${field}`);
  };
  return {
    name: typeof key.name === 'string' ? key.name : undefined,
    prefix: typeof key.prefix === 'string' ? key.prefix : undefined,
    dailyLimit: optionalMoney('daily_cost_limit'),
    dailyUsed: optionalMoney('daily_cost_used'),
  };
}
