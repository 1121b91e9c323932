// Money is a Decimal from the wire to the screen. Amounts are yuan (1 credit = 1 yuan).
import decimalImport from 'decimal.js';
import { isJsonNumber, numberText } from './json.js';
import { isDecimalString } from './decimal-text.js';

// decimal.js ships one .d.ts for its CommonJS and ESM builds; TypeScript reads the default
// import as the CommonJS namespace while Node's ESM build gives the class itself.
const DecimalBase = ('clone' in decimalImport ? decimalImport : decimalImport.default) as typeof decimalImport.default;

/** Enough precision for 20-digit ledger values and the arithmetic done on them. */
export const Decimal = DecimalBase.clone({ precision: 60, toExpNeg: -60, toExpPos: 60 });
export type Decimal = InstanceType<typeof Decimal>;

export const ZERO = new Decimal(0);

/** Thrown when a response carries a malformed amount; the api layer names the host. */
export class MalformedAmount extends Error {}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** Ledger amounts have 20 digits, 8 of them decimal: anything this large is garbage. */
const LARGEST_AMOUNT = new Decimal('1e20');

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

/** Fen (1/100 yuan) to yuan, exactly. */
export function fenToYuan(fen: Decimal): Decimal {
  return fen.div(100);
}

/** Exact plain decimal text, for --json and CSV: no exponent, no rounding. */
export function decimalText(amount: Decimal): string {
  return amount.toFixed();
}

function describe(value: unknown): string {
  if (isJsonNumber(value)) return numberText(value);
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
