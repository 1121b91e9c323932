// A display currency: amounts stay yuan, exactly, and are shown also in another currency at a
// dated rate (CODE per yuan). Arithmetic in decimal.js, rounded half up to the currency's own
// minor unit (JPY none, USD two, KWD three, as Intl.NumberFormat knows them); the formatting is
// Intl.NumberFormat's, handed the exact decimal text (never a binary float).
import { Decimal } from './money.js';
import { isJsonNumber, numberText } from './json.js';

export { currencyCode } from './currency-code.js';

export interface DisplayRate {
  /** ISO 4217 code. */
  currency: string;
  /** CODE per yuan, as the source or the flag gave it (decimal text). */
  rate: string;
  /** The rate's own date (the fixing's, YYYY-MM-DD), or the day it was given. */
  date: string;
  /** Where it came from: the rate source's URL, or `--rate`. */
  source: string;
}

/** A rate as a flag or a source gives it: a positive decimal, at most 20 significant digits. */
export function rateText(text: string): string | undefined {
  if (!/^\d{1,12}(\.\d{1,12})?$/.test(text.trim())) return undefined;
  const value = new Decimal(text.trim());
  return value.gt(0) ? value.toFixed() : undefined;
}

const formatters = new Map<string, Intl.NumberFormat>();
function formatter(currency: string): Intl.NumberFormat {
  let f = formatters.get(currency);
  if (!f) formatters.set(currency, (f = new Intl.NumberFormat('en-GB', { style: 'currency', currency, currencyDisplay: 'symbol' })));
  return f;
}

/** The yuan amount in the display currency, exactly, rounded half up to the currency's minor unit (decimal text). */
export function converted(yuan: Decimal | string, display: DisplayRate): string {
  const digits = formatter(display.currency).resolvedOptions().maximumFractionDigits ?? 2;
  return new Decimal(yuan).mul(display.rate).toDecimalPlaces(digits, Decimal.ROUND_HALF_UP).toFixed(digits);
}

/** `US$171.23`, `¥2,469` (JPY), formatted by Intl from the exact decimal text. */
export function displayText(yuan: Decimal | string, display: DisplayRate): string {
  const text = converted(yuan, display);
  // Intl.NumberFormat formats a decimal string exactly (no float): Node 20 and later.
  return (formatter(display.currency).format as (value: string) => string)(text);
}

/** An amount stated in `currency` itself (a budget set in it): `US$100.00`, `JP¥12,000`, formatted by Intl from the exact decimal text. */
export function amountInCurrency(amount: string, currency: string): string {
  return (formatter(currency).format as (value: string) => string)(amount);
}

/** The rate source's answer, `{"base": "CNY", "date": "YYYY-MM-DD", "rates": {"CODE": rate}}`: the rate and its date, or why not. */
export function readRateReply(body: unknown, currency: string): { rate: string; date: string } | { why: string } {
  if (typeof body !== 'object' || body === null) return { why: 'its answer is not a JSON object' };
  const b = body as Record<string, unknown>;
  if (b.base !== 'CNY') return { why: `its base is ${JSON.stringify(b.base)}, not CNY` };
  if (typeof b.date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(b.date)) return { why: 'its answer has no date' };
  const rates = b.rates as Record<string, unknown> | undefined;
  const raw = rates && typeof rates === 'object' ? rates[currency] : undefined;
  const text = typeof raw === 'string' ? raw : isJsonNumber(raw) ? numberText(raw) : undefined;
  const rate = text === undefined ? undefined : rateText(text);
  if (rate === undefined) return { why: raw === undefined ? `it has no rate for ${currency}` : `its rate for ${currency} is not a positive decimal` };
  return { rate, date: b.date };
}
