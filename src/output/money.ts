// Amounts for people: always yuan, never a dollar sign, whatever a field is called.
import { formatYuan } from '../domain/decimal-text.js';
import type { Decimal } from '../domain/money.js';

/** `¥1,234.50` for CNY; another currency code is shown as a code, never as `$`. */
export function yuan(amount: Decimal | string, currency = 'CNY', minDecimals = 2): string {
  return currency === 'CNY' ? formatYuan(amount, '¥', minDecimals) : `${formatYuan(amount, '', minDecimals)} ${currency}`;
}

/** A share as a percentage with one decimal, computed in decimal. */
export function percent(part: Decimal, whole: Decimal): string {
  if (whole.isZero()) return '—';
  return `${part.div(whole).mul(100).toDecimalPlaces(1).toFixed(1)}%`;
}
