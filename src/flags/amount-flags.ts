// Amounts and shares given as flags (`--min-balance 100`, `--max-daily-used 80%`): decimals, never
// binary numbers; yuan only (`¥` or `CNY` may precede an amount, `$` may not).
import { UsageError } from '../errors.js';
import { Decimal, type Threshold } from '../domain/money.js';
import { amountText } from '../domain/decimal-text.js';

/** An amount in yuan as a decimal; `¥` or `CNY` may precede it, `$` may not; thousands may be grouped (`1,000`). */
export function parseAmount(text: string, flag: string): Decimal {
  const plain = amountText(text);
  if (plain?.startsWith('-')) throw new UsageError(`${flag} "${text}": an amount cannot be negative`);
  if (plain === undefined || !/^\d{1,30}(?:\.\d{1,30})?$/.test(plain)) {
    const hint = /,\d{1,2}$|,\d{4,}/.test(text) ? 'Write decimals with a point (12.50); commas only group thousands (1,000).' : undefined;
    throw new UsageError(`${flag} "${text}" is not an amount in yuan (e.g. 100, 1,000 or 12.50)`, hint ? { hint } : {});
  }
  return new Decimal(plain);
}

export type { Threshold } from '../domain/money.js';

export function parseThreshold(text: string, flag: string): Threshold {
  const percent = /^([-+]?)(\d{1,30}(?:\.\d{1,30})?)\s*%$/.exec(text.trim());
  if (percent?.[1] === '-') throw new UsageError(`${flag} "${text}": a share cannot be negative`);
  if (percent) return { kind: 'percent', value: new Decimal(percent[2]!) };
  return { kind: 'amount', value: parseAmount(text, flag) };
}

/** A share in percent (`50` or `50%`), as a decimal. */
export function parsePercent(text: string, flag: string): Decimal {
  const match = /^([-+]?)(\d{1,30}(?:\.\d{1,30})?)\s*%?$/.exec(text.trim());
  if (match?.[1] === '-') throw new UsageError(`${flag} "${text}": a share cannot be negative`);
  if (!match) throw new UsageError(`${flag} "${text}" is not a percentage (e.g. 50 or 12.5%)`);
  return new Decimal(match[2]!);
}
