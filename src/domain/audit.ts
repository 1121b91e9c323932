// The audit's arithmetic: what the catalog's prices give for the tokens (or calls) a charge was
// for, and whether a charge departs from it beyond the tolerance. Exact decimals; a price or a
// count tally cannot read makes the expected amount unknown, never zero.
import type { PriceRow } from './catalog.js';
import { Decimal } from './money.js';

/** A charge departs when it differs from the prices by more than both: the share (percent) and the amount. */
export interface Tolerance {
  percent: Decimal;
  amount: Decimal;
}

export const DEFAULT_TOLERANCE: Tolerance = { percent: new Decimal('0.5'), amount: new Decimal('0.0001') };

/** What a charge was for: tokens in and out, and calls, where the usage or the log counts them. */
export interface Counted {
  input?: Decimal;
  output?: Decimal;
  calls?: Decimal;
  /** Prompt tokens read from the cache, where the usage reports them. */
  cacheRead?: Decimal;
}

/**
 * `alternative`: with cache reads, whether the input count holds them is not published; the
 * amount is priced with them inside it (the OpenAI convention), the alternative beside it.
 */
export type Expected = { basis: 'tokens' | 'calls'; amount: Decimal; alternative?: Decimal } | { basis: 'unknown'; why: string };

/** The amount the catalog's prices give for what was counted. */
export function expectedCharge(counted: Counted, row: PriceRow | undefined, model: string): Expected {
  if (!row) return { basis: 'unknown', why: `the catalog does not list ${model}` };
  if (row.perToken) {
    if (counted.input === undefined || counted.output === undefined) return { basis: 'unknown', why: 'the usage does not count tokens in and out' };
    const missing = [counted.input.gt(0) && row.input === '' && 'input', counted.output.gt(0) && row.output === '' && 'output'].filter(Boolean);
    if (missing.length) return { basis: 'unknown', why: `the catalog states no ${missing.join(' or ')} price for ${model}` };
    const part = (tokens: Decimal, price: string) => (tokens.isZero() ? new Decimal(0) : tokens.mul(price));
    const cached = counted.cacheRead;
    if (cached !== undefined && cached.gt(0)) {
      if (row.cacheRead === '') return { basis: 'unknown', why: `the catalog states no cache-read price for ${model}` };
      const out = part(counted.output, row.output);
      const inside = part(Decimal.max(counted.input.minus(cached), 0), row.input).plus(part(cached, row.cacheRead)).plus(out).div(1000);
      const beside = part(counted.input, row.input).plus(part(cached, row.cacheRead)).plus(out).div(1000);
      return { basis: 'tokens', amount: inside, alternative: beside };
    }
    return { basis: 'tokens', amount: part(counted.input, row.input).plus(part(counted.output, row.output)).div(1000) };
  }
  // Billed otherwise: a price per call is the one tally can count (seconds and images are not in the usage).
  const prices = row.other.filter((o) => !/second|image|char/i.test(o.name));
  if (prices.length !== 1 || row.other.length !== 1) return { basis: 'unknown', why: `${model} is billed ${row.other[0] ? `by ${row.other[0].name}` : 'otherwise'}, which the usage does not count` };
  if (counted.calls === undefined) return { basis: 'unknown', why: 'the usage does not count calls' };
  return { basis: 'calls', amount: counted.calls.mul(prices[0]!.value) };
}

export type Verdict = 'match' | 'above' | 'below';

/** How a charge stands against the prices: within the tolerance, above it (more was charged), or below. */
export function verdictOf(charged: Decimal, expected: Decimal, tolerance: Tolerance): Verdict {
  const difference = charged.minus(expected);
  const beyondAmount = difference.abs().gt(tolerance.amount);
  const beyondShare = expected.isZero() ? !difference.isZero() : difference.abs().div(expected).mul(100).gt(tolerance.percent);
  if (!beyondAmount || !beyondShare) return 'match';
  return difference.gt(0) ? 'above' : 'below';
}

/** The expected amount a charge is set against: the one priced with cache reads inside the input count, or the other where only that one explains the charge. */
export function settle(charged: Decimal, expected: Expected & { basis: 'tokens' | 'calls' }, tolerance: Tolerance): { amount: Decimal; verdict: Verdict } {
  const first = verdictOf(charged, expected.amount, tolerance);
  if (first !== 'match' && expected.alternative !== undefined && verdictOf(charged, expected.alternative, tolerance) === 'match') return { amount: expected.alternative, verdict: 'match' };
  return { amount: expected.amount, verdict: first };
}

/** difference / expected in percent; null where nothing was expected. */
export function departureShare(charged: Decimal, expected: Decimal): Decimal | null {
  return expected.isZero() ? null : charged.minus(expected).div(expected).mul(100);
}

/** Why a day's charge is not read (a record states none tally can read): unknown, never zero. */
export const CHARGE_NOT_READ = 'a record of its usage states no charge tally can read (null or not a decimal amount)';
