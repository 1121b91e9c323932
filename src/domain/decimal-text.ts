// Money as decimal text: checks, ordering and formatting that need no arithmetic, so that
// showing amounts does not load decimal.js (arithmetic lives in money.ts).

const DECIMAL_STRING = /^-?\d+(?:\.\d+)?$/;

export function isDecimalString(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL_STRING.test(value);
}

const KEPT_DECIMAL = /^-?\d{1,100}(?:\.\d{1,100})?$/;

/** A decimal string as tally writes it into a file it reads back (a cache): signed, a hundred digits at most on each side. */
export function isKeptDecimal(value: unknown): value is string {
  return typeof value === 'string' && KEPT_DECIMAL.test(value);
}

/**
 * Orders two decimal strings by value, exactly and without building Decimals (sorting a
 * catalog of thousands of models by price compares tens of thousands of pairs).
 */
export function compareDecimalText(a: string, b: string): number {
  const negA = a.startsWith('-');
  const negB = b.startsWith('-');
  if (negA !== negB) {
    // Zero however written (-0, 0.000, .0): digits all 0 on either side of one point (a scan, linear in any length).
    const zero = (t: string) => {
      const u = t.startsWith('-') ? t.slice(1) : t;
      const point = u.indexOf('.');
      return /^0*$/.test(point < 0 ? u : u.slice(0, point)) && (point < 0 || /^0*$/.test(u.slice(point + 1)));
    };
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

/**
 * part / whole as a share between 0 and 1, for drawing a bar. A bar is 20 cells wide, so a
 * double is exact enough here; the amounts themselves are never computed this way.
 */
export function shareOf(part: { toString(): string } | string, whole: { toString(): string } | string): number {
  const share = Number(part.toString()) / Number(whole.toString());
  return Number.isFinite(share) ? share : 0;
}

/** The largest amounts tally does arithmetic on exactly: this many digits before and after the point. */
export const MAX_INTEGER_DIGITS = 100;
export const MAX_FRACTION_DIGITS = 100;

const PLAIN_SHORT = /^-?\d{1,100}(?:\.\d{1,100})?$/;
const NUMBER_PARTS = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The exact plain decimal text of a JSON number or decimal string (`1.5e3` is `1500`,
 * `2.50E-2` is `0.0250`), without loading decimal.js; undefined when it is not one, or holds more
 * than MAX_INTEGER_DIGITS digits before the point or MAX_FRACTION_DIGITS after it.
 */
export function plainDecimal(text: string): string | undefined {
  // Most amounts are plain already and short enough: one test, nothing allocated.
  if (PLAIN_SHORT.test(text)) return text;
  const parts = NUMBER_PARTS.exec(text);
  if (!parts) return undefined;
  const [, sign = '', whole = '', fraction = '', exponentText] = parts;
  if (exponentText === undefined) {
    const digits = whole.replace(/^0+(?=\d)/, '');
    if (digits.length > MAX_INTEGER_DIGITS || fraction.length > MAX_FRACTION_DIGITS) return undefined;
    return text;
  }
  if (exponentText.replace(/^[+-]?0*/, '').length > 4) return undefined;
  const exponent = Number(exponentText);
  const digits = whole + fraction;
  let point = whole.length + exponent;
  let integer: string;
  let rest: string;
  if (point <= 0) {
    integer = '0';
    rest = '0'.repeat(-point) + digits;
    point = 0;
  } else if (point >= digits.length) {
    integer = digits + '0'.repeat(point - digits.length);
    rest = '';
  } else {
    integer = digits.slice(0, point);
    rest = digits.slice(point);
  }
  integer = integer.replace(/^0+(?=\d)/, '');
  if (integer.length > MAX_INTEGER_DIGITS || rest.length > MAX_FRACTION_DIGITS) return undefined;
  const zero = /^0*$/.test(integer + rest);
  return `${sign && !zero ? '-' : ''}${integer}${rest ? `.${rest}` : ''}`;
}

/**
 * The text each amount was sent as, by the Decimal made from it: `--exact` shows every digit the
 * service sent (`100.00000000`, which a Decimal writes as `100`). A Decimal computed from
 * others has no entry: it is derived, and shown to the ledger's places.
 */
const SENT = new WeakMap<object, string>();

export function rememberSent<T extends object>(amount: T, text: string): T {
  SENT.set(amount, text);
  return amount;
}

export function sentText(amount: object): string | undefined {
  return SENT.get(amount);
}

/**
 * An amount as a person writes it, as plain decimal text: `¥` or `CNY` before it, thousands
 * grouped with commas (`1,000`, `12,500.50`) or underscores, are accepted; undefined for anything
 * else (`1,5` and `1,00` are not groupings of thousands: never read as 15 or 100). A sign is kept
 * for the caller to refuse in its own words.
 */
export function amountText(text: string): string | undefined {
  const cleaned = text.trim().replace(/^(?:\u00a5|CNY\s*)/i, '').trim();
  const match = /^([-+]?)(\d{1,3}(?:([,_])\d{3}(?:\3\d{3})*)?|\d+)(\.\d+)?$/.exec(cleaned);
  if (!match) return undefined;
  const [, sign = '', whole = '', , fraction = ''] = match;
  return `${sign === '-' ? '-' : ''}${whole.replace(/[,_]/g, '')}${fraction}`;
}

/** `271979` as `271,979`. */
export function groupDigits(digits: string): string {
  if (digits.length <= 3) return digits;
  let out = '';
  const head = digits.length % 3 || 3;
  out = digits.slice(0, head);
  for (let i = head; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return out;
}
