// The key's own quota as panel rows (balance, forecast, status): what it leaves, of what was
// granted, in the unit its record states (never yuan where it states none).
import type { KeyQuotaFigure } from '../figures/key-quota.js';
import type { Decimal } from '../domain/money.js';
import { formatStatedAmount } from './money.js';

/** Rows for a key with a quota; none otherwise (a gateway without the token record has no quota to show: --debug says why). */
export function keyQuotaRows(figure: KeyQuotaFigure, exact: boolean): [string, string][] {
  if (figure.state !== 'quota') return [];
  const { quota } = figure;
  const amount = (value: Decimal) => formatStatedAmount(value, quota.currency, { exact });
  const of = quota.granted === undefined ? '' : ` of ${amount(quota.granted)} granted`;
  return [["Key's quota left", `${amount(quota.remaining)}${of}`]];
}
