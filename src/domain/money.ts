// Money is a Decimal from the wire to the screen. Amounts are yuan (1 credit = 1 yuan).
import decimalImport from 'decimal.js';
import { isJsonNumber, numberText } from './json.js';
import { MAX_FRACTION_DIGITS, MAX_INTEGER_DIGITS, isDecimalString, plainDecimal, rememberSent, sentText } from './decimal-text.js';

// decimal.js ships one .d.ts for its CommonJS and ESM builds; TypeScript reads the default
// import as the CommonJS namespace while Node's ESM build gives the class itself.
const DecimalBase = ('clone' in decimalImport ? decimalImport : decimalImport.default) as typeof decimalImport.default;

/**
 * Enough precision that adding or subtracting any two amounts tally accepts (at most
 * MAX_INTEGER_DIGITS digits before the point and MAX_FRACTION_DIGITS after) is exact.
 */
export const Decimal = DecimalBase.clone({ precision: 2 * (MAX_INTEGER_DIGITS + MAX_FRACTION_DIGITS) + 10, toExpNeg: -500, toExpPos: 500 });
export type Decimal = InstanceType<typeof Decimal>;

export const ZERO = new Decimal(0);

/** Thrown when a response carries a malformed amount; the api layer names the host. */
export class MalformedAmount extends Error {}

const RANGE = `at most ${MAX_INTEGER_DIGITS} digits before the point and ${MAX_FRACTION_DIGITS} after`;

/** A native-family amount: a decimal string, nothing else, within the range tally computes exactly. */
export function moneyFromString(value: unknown, field: string): Decimal {
  if (!isDecimalString(value)) {
    throw new MalformedAmount(`${field} is not a decimal string (got ${describe(value)})`);
  }
  if (plainDecimal(value) === undefined) throw new MalformedAmount(`${field} is out of range (${RANGE}; got ${describe(value)})`);
  return rememberSent(new Decimal(value), value);
}

/** A compatible-family amount: a JSON number, parsed from its exact text, within the same range. */
export function moneyFromNumber(value: unknown, field: string): Decimal {
  if (!isJsonNumber(value)) throw new MalformedAmount(`${field} is not a number (got ${describe(value)})`);
  const plain = plainDecimal(numberText(value));
  if (plain === undefined) throw new MalformedAmount(`${field} is out of range (${RANGE}; got ${describe(value)})`);
  return rememberSent(new Decimal(plain), plain);
}

import { DERIVED_PLACES } from './places.js';

export { DERIVED_PLACES };

/** A derived amount (a share, a saving, a pace, a sum of per-call prices) at DERIVED_PLACES, half up: the one rounding every figure uses. */
export function derived(value: Decimal): Decimal {
  return value.toDecimalPlaces(DERIVED_PLACES, Decimal.ROUND_HALF_UP);
}

/** The same as plain text, for JSON and CSV (no exponent, no trailing zeros added). */
export function derivedText(value: Decimal): string {
  return derived(value).toFixed();
}

/** A derived amount with at least the ledger's places (a figure stated with more keeps them). */
export function ledgerAmount(amount: Decimal): string {
  return amount.toFixed(Math.max(DERIVED_PLACES, amount.decimalPlaces()));
}

/** One decimal, rounded half up, as text (a share, a count of days). */
export function oneDecimal(value: Decimal): string {
  return value.toDecimalPlaces(1, Decimal.ROUND_HALF_UP).toFixed(1);
}

/** Fen (1/100 yuan) to yuan, exactly. */
export function fenToYuan(fen: Decimal): Decimal {
  return fen.div(100);
}

/**
 * Exact plain decimal text, for --json and CSV: no exponent, no rounding. An amount the service
 * sent is written as it sent it (`50.00000000`, not `50`); a derived one as its exact value.
 */
export function decimalText(amount: Decimal): string {
  return sentText(amount) ?? amount.toFixed();
}

function describe(value: unknown): string {
  if (isJsonNumber(value)) {
    const text = numberText(value);
    return text.length > 40 ? `${text.slice(0, 40)}…` : text;
  }
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** A limit given as an amount in yuan, or as a share (in percent) of another figure. */
export type Threshold = { kind: 'amount'; value: Decimal } | { kind: 'percent'; value: Decimal };
