// The figure "what the key's own quota leaves": a key may carry a total spending limit of its
// own (the spec's total_cost_limit), which only the compatible token record states. It is read
// where a key's figures are shown (balance, status, forecast, statusline, metrics, check), from
// one request to /api/usage/token/, which real gateways rate-limit strictly: never retried here,
// and a gateway without it (404) simply has no key quota to show.
import type { Context } from '../context.js';
import type { HttpClient } from '../api/http.js';
import { type TokenRecord, fetchTokenRecord } from '../api/billing.js';
import { Decimal, decimalText } from '../domain/money.js';
import type { CachedQuota } from '../settings/quota-cache.js';
import { AuthError, RateLimitError, ServiceError, TallyError } from '../errors.js';

export interface KeyQuota {
  /** What the key may still spend (never below zero is not assumed: the record's figure as it is). */
  remaining: Decimal;
  granted: Decimal | undefined;
  used: Decimal | undefined;
  /** The unit the record states; undefined when it states none (raw quota units: not comparable with yuan). */
  currency: string | undefined;
}

/**
 * `quota`: the key has one; `none`: it has none (unlimited, a device token, no token endpoint,
 * no amounts in the record); `unknown`: the record could not be read now (said, never a zero).
 */
export type KeyQuotaFigure =
  | { state: 'quota'; quota: KeyQuota }
  | { state: 'none'; reason: string }
  | { state: 'unknown'; reason: string; failure?: QuotaFailure; status?: number };

/** Why the record could not be read, as the exit code a gate on it ends with: rate limited (4), the credential (3), else the service (1). */
export type QuotaFailure = 'rate_limit' | 'auth' | 'service';

/** A gate never passes on a quota it could not read: the failure, as the error its exit code belongs to. */
export function quotaReadError(figure: Extract<KeyQuotaFigure, { state: 'unknown' }>): TallyError {
  const message = figure.reason;
  if (figure.failure === 'rate_limit') return new RateLimitError(message);
  if (figure.failure === 'auth') return new AuthError(message);
  return new ServiceError(message, figure.status === undefined ? {} : { status: figure.status });
}

export function keyQuotaFromRecord(record: TokenRecord): KeyQuotaFigure {
  if (record.unlimited) return { state: 'none', reason: 'the key has an unlimited quota' };
  if (record.available === undefined) return { state: 'none', reason: 'the token record states no available amount' };
  return { state: 'quota', quota: { remaining: record.available, granted: record.granted, used: record.used, currency: record.currency } };
}

/** Where a reading is remembered for a few minutes (the token endpoint's strict limit); none: always ask. */
export interface QuotaMemory {
  stateDir: () => Promise<string>;
  now: () => number;
}

/**
 * The key's quota: remembered for a few minutes per gateway and key, else asked of the gateway
 * once. Never throws for the gateway's sake (Ctrl-C still ends the run). `forGate`: a remembered
 * failure (which spares a view a repeat request) is not served; the gateway is asked again.
 */
export async function fetchKeyQuota(client: HttpClient, memory?: QuotaMemory, options: { forGate?: boolean } = {}): Promise<KeyQuotaFigure> {
  const credential = client.credential;
  if (credential?.kind !== 'api-key') return { state: 'none', reason: 'signed in with a device token (no key)' };
  const stateDir = memory && (await memory.stateDir().catch(() => undefined));
  if (!memory || !stateDir) return askKeyQuota(client);
  const cache = await import('../settings/quota-cache.js');
  const kept = cache.readCachedQuota(stateDir, client.baseUrl, credential.secret, memory.now());
  if (kept && !(options.forGate && kept.state === 'unknown')) return fromCached(kept);
  const figure = await askKeyQuota(client);
  cache.rememberQuota(stateDir, client.baseUrl, credential.secret, toCached(figure), memory.now());
  return figure;
}

async function askKeyQuota(client: HttpClient): Promise<KeyQuotaFigure> {
  try {
    return keyQuotaFromRecord(await fetchTokenRecord(client));
  } catch (error) {
    if (!(error instanceof TallyError) || error.kind === 'interrupted') throw error;
    if (error.status === 404) return { state: 'none', reason: 'the gateway has no token endpoint' };
    const failure: QuotaFailure = error.kind === 'rate_limit' ? 'rate_limit' : error.kind === 'auth' ? 'auth' : 'service';
    return { state: 'unknown', reason: `the key's quota could not be read: ${error.message}`, failure, ...(error.status === undefined ? {} : { status: error.status }) };
  }
}

/**
 * The key's quota as a figure of the computation (a view and a gate apart: a gate never takes a
 * remembered failure): asked of the gateway once, whoever asks, remembered for a few minutes.
 */
export function keyQuotaOf(ctx: Context, forGate?: boolean): Promise<KeyQuotaFigure> {
  return ctx.figure(`key-quota|${forGate ? 'gate' : 'view'}`, async () => {
    // A turn of the event loop first: the requests asked beside it (the balance, the usage) are
    // sent before its cache is read and checked, which then happens while they are answered
    // (balance --json: 1-2% of the run's wall time, measured paired).
    await ctx.checkpoint();
    return fetchKeyQuota(await ctx.client(), ctx.options.demo ? undefined : { stateDir: () => ctx.stateDir(), now: ctx.now }, { forGate });
  });
}

/** A quota as decimal text, the unit stated or null: what JSON documents carry and what the cache keeps. */
function plainQuota(quota: KeyQuota): { remaining: string; granted: string | null; used: string | null; currency: string | null } {
  const text = (amount: Decimal | undefined) => (amount ? decimalText(amount) : null);
  return { remaining: decimalText(quota.remaining), granted: text(quota.granted), used: text(quota.used), currency: quota.currency ?? null };
}

function toCached(figure: KeyQuotaFigure): CachedQuota {
  return figure.state === 'quota' ? { state: 'quota', ...plainQuota(figure.quota) } : figure;
}

function fromCached(kept: CachedQuota): KeyQuotaFigure {
  if (kept.state !== 'quota') return kept;
  const money = (text: string | null) => (text === null ? undefined : new Decimal(text));
  return { state: 'quota', quota: { remaining: new Decimal(kept.remaining), granted: money(kept.granted), used: money(kept.used), currency: kept.currency ?? undefined } };
}

/** The quota in a JSON document: decimal strings, the unit stated or null. */
export function keyQuotaJson(figure: KeyQuotaFigure): Record<string, unknown> | null {
  return figure.state === 'quota' ? plainQuota(figure.quota) : null;
}
