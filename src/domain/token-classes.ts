// Token classes: input, output, cache read, cache write and reasoning tokens, under whatever names
// a gateway gives them (discovered from the records: whole-number fields whose names say which),
// and what the prompt cache saved at the catalog's prices. A class no record reports is "not
// reported" (null), never 0.
import { type JsonObject, isJsonNumber, numberText } from './json.js';
import { Decimal } from './money.js';
import type { PriceRow } from './catalog.js';

export const TOKEN_CLASSES = ['input', 'output', 'cache_read', 'cache_write', 'reasoning'] as const;
export type TokenClass = (typeof TOKEN_CLASSES)[number];

/** The field that counts each class, where the records have one. */
export type ClassFields = Partial<Record<TokenClass, string>>;

/** A name with `cache` and, somewhere after it, `after` (a scan for the first `cache`: linear where `cache.*x` backtracks on a long name). */
const cacheThen = (after: RegExp) => (name: string) => {
  const at = name.toLowerCase().indexOf('cache');
  return at >= 0 && after.test(name.slice(at + 5));
};
const named = (test: (name: string) => boolean) => ({ test });

const RULES: [TokenClass, { test(name: string): boolean }, RegExp?][] = [
  ['cache_read', named((n) => cacheThen(/read|hit/i)(n) || /cached|cache_tokens$/i.test(n))],
  ['cache_write', named(cacheThen(/write|creation|created/i))],
  ['reasoning', /reasoning|thinking/i],
  ['input', /prompt|input/i, /cache|cached|reasoning|thinking|price|cost|ratio|limit|total/i],
  ['output', /completion|output/i, /cache|cached|reasoning|thinking|price|cost|ratio|limit|total/i],
];

/** Which record fields count which class: names that say tokens (or a cache) and hold whole numbers. */
export function classFields(records: JsonObject[]): ClassFields {
  const names = [...new Set(records.flatMap((r) => Object.keys(r)))].filter((n) => /token|cache/i.test(n) && !/price|cost|ratio|limit|rate/i.test(n) && records.some((r) => wholeText(r[n]) !== undefined));
  const fields: ClassFields = {};
  for (const [cls, pattern, not] of RULES) {
    const name = names.find((n) => pattern.test(n) && !(not?.test(n) ?? false) && !Object.values(fields).includes(n));
    if (name) fields[cls] = name;
  }
  return fields;
}

export function wholeText(value: unknown): string | undefined {
  const text = isJsonNumber(value) ? numberText(value) : typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : typeof value === 'string' && /^\d{1,20}$/.test(value) ? value : undefined;
  return text !== undefined && /^\d{1,20}$/.test(text) ? text : undefined;
}

/** Each class summed over the records (a class some record leaves out or gives otherwise: null, never partial). */
export function classTotals(records: JsonObject[], fields: ClassFields): Record<TokenClass, Decimal | null> {
  const totals = {} as Record<TokenClass, Decimal | null>;
  for (const cls of TOKEN_CLASSES) {
    const field = fields[cls];
    if (field === undefined) {
      totals[cls] = null;
      continue;
    }
    let sum: Decimal | null = new Decimal(0);
    for (const record of records) {
      const text = wholeText(record[field]);
      if (text === undefined) {
        sum = null;
        break;
      }
      sum = sum.plus(text);
    }
    totals[cls] = sum;
  }
  return totals;
}

export type CacheSavings = { saved: Decimal; share: Decimal | null } | { saved: null; why: string };

/**
 * What reading from the prompt cache saved: cache-read tokens × (input price − cache-read price)
 * per 1,000, and the cache-read tokens as a share (percent) of the input tokens as reported.
 */
export function cacheSavings(totals: Record<TokenClass, Decimal | null>, row: PriceRow | undefined, model: string): CacheSavings {
  const read = totals.cache_read;
  if (read === null) return { saved: null, why: 'the gateway does not report cache-read tokens' };
  if (!row) return { saved: null, why: `the catalog does not list ${model}` };
  if (row.input === '' || row.cacheRead === '') return { saved: null, why: `the catalog states no ${row.input === '' ? 'input' : 'cache-read'} price for ${model}` };
  const saved = read.mul(new Decimal(row.input).minus(row.cacheRead)).div(1000);
  const input = totals.input;
  return { saved, share: input === null || input.isZero() ? null : read.div(input).mul(100) };
}
