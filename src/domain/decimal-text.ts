// Money as decimal text: checks, ordering and formatting that need no arithmetic, so that
// showing amounts does not load decimal.js (arithmetic lives in money.ts).

const DECIMAL_STRING = /^-?\d+(?:\.\d+)?$/;

export function isDecimalString(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL_STRING.test(value);
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

/**
 * part / whole as a share between 0 and 1, for drawing a bar. A bar is 20 cells wide, so a
 * double is exact enough here; the amounts themselves are never computed this way.
 */
export function shareOf(part: { toString(): string } | string, whole: { toString(): string } | string): number {
  const share = Number(part.toString()) / Number(whole.toString());
  return Number.isFinite(share) ? share : 0;
}

/**
 * A yuan amount for people: thousands separators, at least `minDecimals` decimals, and every
 * further decimal the ledger holds (never rounded away).
 */
export function formatYuan(amount: { toFixed(): string } | string, symbol = '¥', minDecimals = 2): string {
  const text = typeof amount === 'string' ? amount : amount.toFixed();
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
