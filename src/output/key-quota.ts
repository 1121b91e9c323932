// The key's own quota as panel rows (balance, forecast, status): what it leaves, of what was
// granted, in the unit its record states (never yuan where it states none).
import type { KeyQuotaFigure } from '../figures/key-quota.js';
import type { Decimal } from '../domain/money.js';
import { formatStatedAmount } from './money.js';

/**
 * Rows for a key with a quota, and for one whose quota could not be read ("not read", with why:
 * never left out as if there were none); none for a key without one (--debug says why).
 */
export function keyQuotaRows(figure: KeyQuotaFigure, exact: boolean): [string, string][] {
  if (figure.state === 'unknown') return [["Key's quota", `not read (${notReadWhy(figure)})`]];
  if (figure.state !== 'quota') return [];
  const { quota } = figure;
  const amount = (value: Decimal) => formatStatedAmount(value, quota.currency, { exact });
  const of = quota.granted === undefined ? '' : ` of ${amount(quota.granted)} granted`;
  return [["Key's quota left", `${amount(quota.remaining)}${of}`]];
}

/** Why a quota was not read, in a few words: `rate limited`, `the credential was refused`, `the gateway failed`. */
export function notReadWhy(figure: Extract<KeyQuotaFigure, { state: 'unknown' }>): string {
  return figure.failure === 'rate_limit' ? 'rate limited' : figure.failure === 'auth' ? 'the credential was refused' : 'the gateway failed';
}
