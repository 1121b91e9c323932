// Money is a Decimal from the wire to the screen. Amounts are yuan (1 credit = 1 yuan).
import decimalImport from 'decimal.js';
import { isJsonNumber, numberText } from './json.js';

// decimal.js ships one .d.ts for its CommonJS and ESM builds; TypeScript reads the default
// import as the CommonJS namespace while Node's ESM build gives the class itself.
const DecimalBase = ('clone' in decimalImport ? decimalImport : decimalImport.default) as typeof decimalImport.default;

/** Enough precision for 20-digit ledger values and the arithmetic done on them. */
export const Decimal = DecimalBase.clone({ precision: 60, toExpNeg: -60, toExpPos: 60 });
export type Decimal = InstanceType<typeof Decimal>;

export const ZERO = new Decimal(0);

/** Thrown when a response carries a malformed amount; the api layer names the host. */
export class MalformedAmount extends Error {}

const DECIMAL_STRING = /^-?\d+(?:\.\d+)?$/;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** Ledger amounts have 20 digits, 8 of them decimal: anything this large is garbage. */
const LARGEST_AMOUNT = new Decimal('1e20');

export function isDecimalString(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL_STRING.test(value);
}

/** A native-family amount: a decimal string, nothing else. */
export function moneyFromString(value: unknown, field: string): Decimal {
  if (!isDecimalString(value)) {
    throw new MalformedAmount(`${field} is not a decimal string (got ${describe(value)})`);
  }
  return new Decimal(value);
}

/** A compatible-family amount: a JSON number, parsed from its exact text. */
export function moneyFromNumber(value: unknown, field: string): Decimal {
  if (!isJsonNumber(value) || !JSON_NUMBER.test(numberText(value))) {
    throw new MalformedAmount(`${field} is not a number (got ${describe(value)})`);
  }
  const amount = new Decimal(numberText(value));
  if (!amount.isFinite() || amount.abs().gte(LARGEST_AMOUNT)) {
    throw new MalformedAmount(`${field} is out of range (got ${numberText(value)})`);
  }
  return amount;
}

/**
 * part / whole as a share between 0 and 1, for drawing a bar. A bar is 20 cells wide, so a
 * double is exact enough here; the amounts themselves are never computed this way.
 */
export function shareOf(part: Decimal | string, whole: Decimal | string): number {
  const share = Number(part.toString()) / Number(whole.toString());
  return Number.isFinite(share) ? share : 0;
}

/**
 * Orders two decimal strings by value, exactly and without building Decimals (sorting a
 * catalog of thousands of models by price compares tens of thousands of pairs).
 */
export function compareDecimalText(a: string, b: string): number {
  const negA = a.startsWith('-');
  const negB = b.startsWith('-');
  if (negA !== negB) {
    const zero = (t: string) => /^-?0*\.?0*$/.test(t);
    if (zero(a) && zero(b)) return 0;
    return negA ? -1 : 1;
  }
  const magnitude = compareMagnitude(negA ? a.slice(1) : a, negB ? b.slice(1) : b);
  return negA ? -magnitude : magnitude;
}

function compareMagnitude(a: string, b: string): number {
  const [wa = '', fa = ''] = a.split('.');
  const [wb = '', fb = ''] = b.split('.');
  const ia = wa.replace(/^0+/, '');
  const ib = wb.replace(/^0+/, '');
  if (ia.length !== ib.length) return ia.length < ib.length ? -1 : 1;
  if (ia !== ib) return ia < ib ? -1 : 1;
  const length = Math.max(fa.length, fb.length);
  const pa = fa.padEnd(length, '0');
  const pb = fb.padEnd(length, '0');
  return pa === pb ? 0 : pa < pb ? -1 : 1;
}

/** Fen (1/100 yuan) to yuan, exactly. */
export function fenToYuan(fen: Decimal): Decimal {
  return fen.div(100);
}

/** Exact plain decimal text, for --json and CSV: no exponent, no rounding. */
export function decimalText(amount: Decimal): string {
  return amount.toFixed();
}

/**
 * A yuan amount for people: thousands separators, at least `minDecimals` decimals, and every
 * further decimal the ledger holds (never rounded away).
 */
export function formatYuan(amount: Decimal | string, symbol = '¥', minDecimals = 2): string {
  const text = typeof amount === 'string' && DECIMAL_STRING.test(amount) ? amount : new Decimal(amount).toFixed();
  const negative = text.charCodeAt(0) === 45; // '-'
  const body = negative ? text.slice(1) : text;
  const dot = body.indexOf('.');
  let whole = dot < 0 ? body : body.slice(0, dot);
  let fraction = dot < 0 ? '' : body.slice(dot + 1);
  let end = fraction.length;
  while (end > 0 && fraction.charCodeAt(end - 1) === 48) end--;
  fraction = fraction.slice(0, end);
  const zero = end === 0 && /^0+$/.test(whole);
  if (fraction.length < minDecimals) fraction += '0'.repeat(minDecimals - fraction.length);
  let start = 0;
  while (start < whole.length - 1 && whole.charCodeAt(start) === 48) start++;
  whole = whole.slice(start);
  if (whole.length > 3) whole = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative && !zero ? '-' : ''}${symbol}${whole}.${fraction}`;
}

function describe(value: unknown): string {
  if (isJsonNumber(value)) return numberText(value);
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
