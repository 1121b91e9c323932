// How numbers look to people: the one rule for every table, panel, check line, annotation and
// step summary. A column's precision follows what it holds, never the data or the window:
//
//   account amounts (balances, limits, spend over a period, totals)   2 decimals   ¥5,770.95
//   unit prices (per 1M tokens, per call, per second, per image)      4 decimals   ¥0.8750
//   the cost of one call (log entries)                                4 decimals   ¥0.0123
//   counts (calls, tokens)                                            as sent      271,979
//   shares (of a limit, of a period)                                  1 decimal    24.6%
//
// Amounts are rounded half up from their exact decimal text, once (a total is the exact total,
// rounded); a nonzero amount that rounds to zero is shown as `<¥0.01`, never as zero. Digits are
// grouped in threes. `--exact` shows every digit the service sent. Everything here works on
// decimal text: no amount ever passes through a binary float.
import { compareDecimalText, groupDigits, plainDecimal, sentText } from '../domain/decimal-text.js';
import type { Decimal } from '../domain/money.js';
import { DERIVED_PLACES } from '../domain/places.js';
import { escapeControl } from './escape.js';

export type AmountKind = 'account' | 'unit-price' | 'per-call';

/** Decimal places shown for each kind of amount. */
export const AMOUNT_DECIMALS: Record<AmountKind, number> = { account: 2, 'unit-price': 4, 'per-call': 4 };

export interface AmountOptions {
  /** Every digit the service sent, unrounded (`--exact`). */
  exact?: boolean;
  /** The currency code the amount is in (default CNY, shown as ¥); another is shown as a code after the amount, never as `$`. */
  currency?: string;
  /** Decimal places instead of the kind's (a check line shows an actual as precisely as its limit). */
  decimals?: number;
}

/** The run's display currency (--currency): its rate, and how a yuan amount reads in it (given by the program's top, which loads decimal.js). */
let alsoIn: { display: import('../domain/display-currency.js').DisplayRate; text: (yuan: string) => string } | undefined;

/** Shows every account amount also in a display currency from now on (undefined: the yuan alone). */
export function showAlsoIn(display: import('../domain/display-currency.js').DisplayRate | undefined, text?: (yuan: string) => string): void {
  alsoIn = display && text ? { display, text } : undefined;
}

/** The run's display currency, where one is set. */
export function displayCurrency(): import('../domain/display-currency.js').DisplayRate | undefined {
  return alsoIn?.display;
}

/** An amount for people, e.g. `¥5,770.95`, `<¥0.01`, `-¥12.30`, or `12.30 USD`; with a display currency, `¥1,234.56 ≈ US$171.23`. */
export function formatAmount(amount: Decimal | string, kind: AmountKind, options: AmountOptions = {}): string {
  const text = typeof amount === 'string' ? (plainDecimal(amount) ?? amount) : amount.toFixed();
  const currency = options.currency ?? 'CNY';
  const symbol = currency === 'CNY' ? '¥' : '';
  const suffix = currency === 'CNY' ? '' : ` ${escapeControl(currency)}`;
  if (options.exact) {
    // Every digit the service sent; an amount tally derived has the ledger's places at most.
    const sent = typeof amount === 'string' ? text : sentText(amount);
    return withSymbol(sent ?? roundHalfUp(text, DERIVED_PLACES), symbol) + suffix;
  }
  const decimals = options.decimals ?? AMOUNT_DECIMALS[kind];
  const rounded = padDecimals(roundHalfUp(text, decimals), decimals);
  if (isZeroText(rounded) && !isZeroText(text)) {
    return `${text.startsWith('-') ? '-' : ''}<${symbol}0.${'0'.repeat(decimals - 1)}1${suffix}`;
  }
  const shown = withSymbol(rounded, symbol) + suffix;
  // Account amounts in yuan, also in the display currency (prices and a call's cost stay yuan alone).
  return alsoIn && currency === 'CNY' && kind === 'account' ? `${shown} \u2248 ${alsoIn.text(text)}` : shown;
}

/**
 * A whole and one part of it, and the rest, as a line shows them so that they add up on the page
 * (`¥2.54 + ¥11.78 = ¥14.32`): the whole and the part rounded as `kind` shows amounts, the rest
 * what is left between them; with `exact`, every digit, which adds up as it is.
 */
export function partsOnThePage(whole: Decimal, part: Decimal, kind: AmountKind, exact = false): { whole: Decimal; part: Decimal; rest: Decimal } {
  if (exact) return { whole, part, rest: whole.minus(part) };
  // 4 is Decimal.ROUND_HALF_UP (decimal.js is not loaded by this module: the statusline reads it).
  const shown = (value: Decimal) => value.toDecimalPlaces(AMOUNT_DECIMALS[kind], 4);
  return { whole: shown(whole), part: shown(part), rest: shown(whole).minus(shown(part)) };
}

/** `-1234.5` as `-¥1,234.5`: the sign first, digits grouped, the fraction as it is, no leading zeros. */
function withSymbol(text: string, symbol: string): string {
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  const dot = body.indexOf('.');
  const whole = (dot < 0 ? body : body.slice(0, dot)).replace(/^0+(?=\d)/, '');
  return `${negative && !isZeroText(body) ? '-' : ''}${symbol}${groupDigits(whole)}${dot < 0 ? '' : body.slice(dot)}`;
}

/** Decimal text with exactly `decimals` places (it has at most that many). */
function padDecimals(text: string, decimals: number): string {
  if (decimals === 0) return text;
  const dot = text.indexOf('.');
  const have = dot < 0 ? 0 : text.length - dot - 1;
  return `${text}${dot < 0 ? '.' : ''}${'0'.repeat(decimals - have)}`;
}

/** A count (calls, tokens) with its digits grouped: `271,979`; a fraction as sent (`1,234.5`). */
export function formatCount(text: string): string {
  const plain = plainDecimal(text) ?? text;
  const negative = plain.startsWith('-');
  const body = negative ? plain.slice(1) : plain;
  const dot = body.indexOf('.');
  const whole = dot < 0 ? body : body.slice(0, dot);
  const grouped = groupDigits(whole);
  return `${negative ? '-' : ''}${grouped}${dot < 0 ? '' : body.slice(dot)}`;
}


/** part / whole as a percentage with one decimal, computed in decimal; `<0.1%` for a sliver. */
export function formatPercent(part: Decimal, whole: Decimal): string {
  return formatShare(part.toFixed(), whole.toFixed());
}

/**
 * The one rule for shares (README: shares have 1 decimal), from decimal text: part / whole as a
 * percentage rounded half up to one decimal (`4.3%`), `<0.1%` for a nonzero sliver, `—` when the
 * whole is zero. Exact, with no decimal library, so the statusline can use it too.
 */
export function formatShare(part: string, whole: string): string {
  const scale = (text: string, places: number) => {
    const negative = text.startsWith('-');
    const [int = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
    const value = BigInt(int + fraction.padEnd(places, '0').slice(0, places));
    return negative ? -value : value;
  };
  const places = Math.max(decimalPlaces(part), decimalPlaces(whole));
  const p = scale(part, places);
  const w = scale(whole, places);
  if (w === 0n) return '—';
  // Tenths of a percent, rounded half away from zero: (p * 1000 / w) with the remainder looked at.
  const negative = (p < 0n) !== (w < 0n) && p !== 0n;
  const num = (p < 0n ? -p : p) * 1000n;
  const den = w < 0n ? -w : w;
  let tenths = num / den;
  if ((num % den) * 2n >= den) tenths += 1n;
  if (tenths === 0n && p !== 0n) return negative ? '>-0.1%' : '<0.1%';
  const text = `${tenths / 10n}.${tenths % 10n}%`;
  return negative ? `-${text}` : text;
}

function decimalPlaces(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** Decimal text rounded half up (away from zero at .5) to `decimals` places, exactly. */
export function roundHalfUp(text: string, decimals: number): string {
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  const dot = body.indexOf('.');
  const whole = dot < 0 ? body : body.slice(0, dot);
  const fraction = dot < 0 ? '' : body.slice(dot + 1);
  if (fraction.length <= decimals) return text;
  const kept = whole + fraction.slice(0, decimals);
  const up = fraction.charCodeAt(decimals) >= 53; // '5'
  let digits = up ? incrementDigits(kept) : kept;
  if (digits.length < decimals + 1) digits = digits.padStart(decimals + 1, '0');
  const intPart = digits.slice(0, digits.length - decimals) || '0';
  const fracPart = digits.slice(digits.length - decimals);
  const result = decimals > 0 ? `${intPart}.${fracPart}` : intPart;
  return negative && !isZeroText(result) ? `-${result}` : result;
}

function incrementDigits(digits: string): string {
  const chars = digits.split('');
  for (let i = chars.length - 1; i >= 0; i--) {
    if (chars[i] === '9') chars[i] = '0';
    else {
      chars[i] = String.fromCharCode(chars[i]!.charCodeAt(0) + 1);
      return chars.join('');
    }
  }
  return `1${chars.join('')}`;
}

function isZeroText(text: string): boolean {
  return /^-?[0.]*$/.test(text);
}

/**
 * An amount in the unit its record states, or, where it states none (the compatible token record
 * of real gateways: raw quota units), a plain grouped number that says so: never labelled yuan.
 */
export function formatStatedAmount(amount: Decimal | string, unit: string | undefined, options: { exact?: boolean } = {}): string {
  if (unit !== undefined) return formatAmount(amount, 'account', { currency: unit, exact: options.exact });
  return `${formatAmount(amount, 'account', { currency: 'units', exact: options.exact })} (unit not stated)`;
}

/**
 * Decimal places that show an actual beside its limit honestly: at least the column's, at least
 * the limit's own, and more (up to the ledger's 8) while two different values would read the
 * same, so a failure never reads like a pass (`actual 2.7%, limit 2.73%`, `¥1.37` beside `¥1.37`).
 */
export function placesBeside(actual: string, limit: string, base: number): number {
  const a = plainDecimal(actual);
  const b = plainDecimal(limit);
  let places = Math.max(base, decimalPlaces(b ?? limit));
  if (a !== undefined && b !== undefined && compareDecimalText(a, b) !== 0) {
    while (places < DERIVED_PLACES && fixedPlaces(a, places) === fixedPlaces(b, places)) places++;
  }
  return Math.min(places, Math.max(DERIVED_PLACES, base));
}

/** Decimal text rounded half up to exactly `places` places (`2.7272` → `2.73`, `5` → `5.00`). */
export function fixedPlaces(text: string, places: number): string {
  return padDecimals(roundHalfUp(plainDecimal(text) ?? text, places), places);
}

/** Digits grouped by thousands: the rule lives with decimal text, which figures' messages use too. */
export { groupDigits };
