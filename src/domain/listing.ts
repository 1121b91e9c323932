// The compact form of a catalog's rows that the price cache keeps (settings/pricing-cache.ts).
import { isDecimalString } from './decimal-text.js';
import type { PriceRow } from './catalog.js';

/**
 * The rows of a catalog as the cached listing stores them. Catalogs repeat a few vendors, type
 * lists and prices across thousands of models, so each distinct string and string list is
 * stored once and every model is ten indexes into them: a listing of 5,000 models is a quarter
 * of the size of one row per model, parses in a few milliseconds, and its rows share their
 * strings and arrays.
 */
export interface Listing {
  format: typeof LISTING_FORMAT;
  /** Every distinct string but the model names. */
  strings: string[];
  /** Distinct lists of indexes into `strings` (vendor keys, types, groups, other prices as name, value, ...). */
  lists: number[][];
  names: string[];
  /** Per model, in the order of `names`: the indexes FIELDS names. */
  rows: number[];
}

const LISTING_FORMAT = 2;

// vendor, vendorKeys*, types*, groups*, billingMode, perToken (0/1), input, output, cacheRead, other* (* a list)
const FIELDS = 10;

interface ListNode {
  id: number;
  next: Map<number, ListNode> | undefined;
}

export function toListing(rows: PriceRow[]): Listing {
  const strings: string[] = [];
  const stringIds = new Map<string, number>();
  const lists: number[][] = [];
  const string = (text: string) => {
    let id = stringIds.get(text);
    if (id === undefined) stringIds.set(text, (id = strings.push(text) - 1));
    return id;
  };
  // A list is found by walking a tree of its string ids, one level per item: thousands of rows
  // repeat a few lists, and finding one this way allocates nothing.
  const root: ListNode = { id: -1, next: undefined };
  let node = root;
  const add = (text: string) => {
    const id = string(text);
    let next = node.next?.get(id);
    if (!next) (node.next ??= new Map()).set(id, (next = { id: -1, next: undefined }));
    node = next;
  };
  const end = (texts: () => string[]) => {
    const found = node;
    node = root;
    if (found.id < 0) found.id = lists.push(texts().map(string)) - 1;
    return found.id;
  };
  const list = (texts: string[]) => {
    for (const text of texts) add(text);
    return end(() => texts);
  };
  const noOther = list([]);
  const indexes: number[] = [];
  for (const row of rows) {
    let other = noOther;
    if (row.other.length > 0) {
      for (const o of row.other) {
        add(o.name);
        add(o.value);
      }
      other = end(() => row.other.flatMap((o) => [o.name, o.value]));
    }
    indexes.push(
      string(row.vendor),
      list(row.vendorKeys),
      list(row.types),
      list(row.groups),
      string(row.billingMode),
      row.perToken ? 1 : 0,
      string(row.input),
      string(row.output),
      string(row.cacheRead),
      other,
    );
  }
  return { format: LISTING_FORMAT, strings, lists, names: rows.map((row) => row.name), rows: indexes };
}

/** The rows back from a cached listing; undefined when it is not one this version of tally wrote. */
export function fromListing(value: unknown): PriceRow[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { format, strings, lists, names, rows } = value as Listing;
  if (format !== LISTING_FORMAT || !isStrings(strings) || !isStrings(names) || !Array.isArray(lists) || !Array.isArray(rows)) return undefined;
  if (rows.length !== names.length * FIELDS) return undefined;
  if (!rows.every(Number.isInteger)) return undefined;
  const texts: string[][] = [];
  // Other prices as name, value pairs; undefined for a list that is not pairs.
  const others: (PriceRow['other'] | undefined)[] = [];
  for (const ids of lists) {
    if (!Array.isArray(ids)) return undefined;
    const list = ids.map((id) => strings[id]!);
    if (!isStrings(list)) return undefined;
    const other: PriceRow['other'] = [];
    for (let i = 0; i + 1 < list.length; i += 2) other.push({ name: list[i]!, value: list[i + 1]! });
    texts.push(list);
    // Read back from a file: its prices are checked as strictly as the service's.
    others.push(list.length % 2 === 0 && other.every((o) => isDecimalString(o.value)) ? other : undefined);
  }
  // Whether a string is a price ('' or a decimal), worked out once per string, not once per
  // model that shows it: 0 not yet, 1 yes, 2 no.
  const priceChecked = new Uint8Array(strings.length);
  const price = (id: number) => {
    let state = priceChecked[id];
    if (state === 0) priceChecked[id] = state = isPriceText(strings[id]!) ? 1 : 2;
    return state === 1;
  };
  const result = new Array<PriceRow>(names.length);
  for (let m = 0, k = 0; m < names.length; m++, k += FIELDS) {
    const row: PriceRow = {
      name: names[m]!,
      vendor: strings[rows[k]!]!,
      vendorKeys: texts[rows[k + 1]!]!,
      types: texts[rows[k + 2]!]!,
      groups: texts[rows[k + 3]!]!,
      billingMode: strings[rows[k + 4]!]!,
      perToken: rows[k + 5] === 1,
      input: strings[rows[k + 6]!]!,
      output: strings[rows[k + 7]!]!,
      cacheRead: strings[rows[k + 8]!]!,
      other: others[rows[k + 9]!]!,
    };
    // An index out of range reads undefined: not a listing tally wrote.
    if (row.vendor === undefined || row.vendorKeys === undefined || row.types === undefined || row.groups === undefined || row.billingMode === undefined) return undefined;
    if (row.input === undefined || row.output === undefined || row.cacheRead === undefined || row.other === undefined) return undefined;
    if (rows[k + 5] !== 0 && rows[k + 5] !== 1) return undefined;
    if (!price(rows[k + 6]!) || !price(rows[k + 7]!) || !price(rows[k + 8]!)) return undefined;
    result[m] = row;
  }
  return result;
}

function isPriceText(text: string): boolean {
  return text === '' || isDecimalString(text);
}

function isStrings(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (typeof item !== 'string') return false;
  return true;
}
