// Amounts and shares given as flags (`--min-balance 100`, `--max-daily-used 80%`): decimals, never
// binary numbers; yuan only (`¥` or `CNY` may precede an amount, `$` may not).
import { UsageError } from '../errors.js';
import { Decimal } from '../domain/money.js';

/** An amount in yuan as a decimal; `¥` or `CNY` may precede it, `$` may not. */
export function parseAmount(text: string, flag: string): Decimal {
  const cleaned = text.trim().replace(/^(?:\u00a5|CNY\s*)/i, '');
  if (!/^\d{1,30}(?:\.\d{1,30})?$/.test(cleaned)) throw new UsageError(`${flag} "${text}" is not an amount in yuan (e.g. 100 or 12.50)`);
  return new Decimal(cleaned);
}

export type Threshold = { kind: 'amount'; value: Decimal } | { kind: 'percent'; value: Decimal };

export function parseThreshold(text: string, flag: string): Threshold {
  const percent = /^(\d{1,30}(?:\.\d{1,30})?)%$/.exec(text.trim());
  if (percent) return { kind: 'percent', value: new Decimal(percent[1]!) };
  return { kind: 'amount', value: parseAmount(text, flag) };
}

/** A share in percent (`50` or `50%`), as a decimal. */
export function parsePercent(text: string, flag: string): Decimal {
  const match = /^(\d{1,30}(?:\.\d{1,30})?)%?$/.exec(text.trim());
  if (!match) throw new UsageError(`${flag} "${text}" is not a percentage (e.g. 50 or 12.5%)`);
  return new Decimal(match[1]!);
}
