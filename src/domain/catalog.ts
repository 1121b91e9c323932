// The price catalog's rules: prices come from `service_pricing` (yuan per 1,000 tokens, or per
// call), never from the ratios; `owned_by` of the model list means nothing.
import { compareDecimalText, isDecimalString } from './decimal-text.js';
import { type JsonObject, type JsonValue, isJsonObject } from './json.js';

/**
 * Multiplies a decimal string by 1,000 by moving the point: exact, and cheap enough for a
 * catalog of thousands of models.
 */
export function per1M(per1K: string): string {
  const negative = per1K.charCodeAt(0) === 45; // '-'
  const text = negative ? per1K.slice(1) : per1K;
  const dot = text.indexOf('.');
  const whole = dot < 0 ? text : text.slice(0, dot);
  const fraction = dot < 0 ? '' : text.slice(dot + 1);
  const shifted = fraction.length >= 3 ? fraction.slice(0, 3) : fraction + '000'.slice(fraction.length);
  let intPart = whole + shifted;
  let start = 0;
  while (start < intPart.length - 1 && intPart.charCodeAt(start) === 48) start++;
  intPart = intPart.slice(start);
  let rest = fraction.length > 3 ? fraction.slice(3) : '';
  let end = rest.length;
  while (end > 0 && rest.charCodeAt(end - 1) === 48) end--;
  rest = rest.slice(0, end);
  return `${negative ? '-' : ''}${intPart}${rest ? `.${rest}` : ''}`;
}

export function modelName(record: JsonObject): string {
  return typeof record.model_name === 'string' ? record.model_name : '';
}

/** The vendor's name: `vendor.name`, else `owner_by` (the catalog fills it in). */
export function vendorName(record: JsonObject): string | undefined {
  if (isJsonObject(record.vendor) && typeof record.vendor.name === 'string') return record.vendor.name;
  return typeof record.owner_by === 'string' && record.owner_by !== '' ? record.owner_by : undefined;
}

export function stringList(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

type GlobToken = { kind: 'star' } | { kind: 'any' } | { kind: 'char'; char: string } | { kind: 'set'; negated: boolean; ranges: [string, string][] };

/**
 * A shell-style glob (`*`, `?`, `[abc]`, `[!a-z]`, `\` escapes) as a whole-name,
 * case-insensitive matcher that runs in time linear in the name's length (times the pattern's).
 * Not a regular expression: a backtracking regex takes seconds on `*a*a*b*` against a long name,
 * and the glob libraries (picomatch, zeptomatch) compile to one; minimatch treats `/`, common in
 * model names, as a path separator.
 */
export function globMatcher(glob: string): (name: string) => boolean {
  const tokens: GlobToken[] = [];
  const chars = Array.from(glob.toLowerCase());
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (char === '*') {
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (char === '?') tokens.push({ kind: 'any' });
    else if (char === '\\' && i + 1 < chars.length) tokens.push({ kind: 'char', char: chars[++i]! });
    else if (char === '[') {
      const set = readSet(chars, i + 1);
      if (set) {
        tokens.push(set.token);
        i = set.end;
      } else tokens.push({ kind: 'char', char });
    } else tokens.push({ kind: 'char', char });
  }
  return (name) => {
    const lower = name.toLowerCase();
    // A character per index, as the tokens hold them: a string is that already unless it has a
    // surrogate pair (a character outside the BMP), and splitting thousands of names cost more
    // than matching them.
    return matchTokens(tokens, SURROGATE.test(lower) ? Array.from(lower) : lower);
  };
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** `[...]` from just after the bracket: its ranges and where it ends, or undefined when it never closes. */
function readSet(chars: string[], from: number): { token: GlobToken; end: number } | undefined {
  let i = from;
  const negated = chars[i] === '!' || chars[i] === '^';
  if (negated) i++;
  const ranges: [string, string][] = [];
  // A ] right after the bracket (or its negation) is a member.
  for (let first = true; i < chars.length; first = false) {
    const char = chars[i]!;
    if (char === ']' && !first) return { token: { kind: 'set', negated, ranges }, end: i };
    if (chars[i + 1] === '-' && i + 2 < chars.length && chars[i + 2] !== ']') {
      ranges.push([char, chars[i + 2]!]);
      i += 3;
    } else {
      ranges.push([char, char]);
      i++;
    }
  }
  return undefined;
}

function matchOne(token: GlobToken, char: string): boolean {
  switch (token.kind) {
    case 'any': return true;
    case 'char': return token.char === char;
    case 'set': return token.ranges.some(([low, high]) => char >= low && char <= high) !== token.negated;
    case 'star': return false;
  }
}

/**
 * The two-pointer wildcard match: on a mismatch, the last star takes one more character. Each
 * character of the name is looked at once per pattern position at most.
 */
function matchTokens(tokens: GlobToken[], name: ArrayLike<string>): boolean {
  let t = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    const token = tokens[t];
    if (token && token.kind !== 'star' && matchOne(token, name[n]!)) {
      t++;
      n++;
    } else if (token?.kind === 'star') {
      star = t++;
      resume = n;
    } else if (star >= 0) {
      t = star + 1;
      n = ++resume;
    } else return false;
  }
  while (tokens[t]?.kind === 'star') t++;
  return t === tokens.length;
}

/** What listings filter, sort and show of a catalog record, worked out once. */
export interface PriceRow {
  name: string;
  /** Vendor name for display ('' when the record names none). */
  vendor: string;
  /** Lower-case names a --vendor filter matches: vendor.name, vendor.slug, owner_by. */
  vendorKeys: string[];
  types: string[];
  groups: string[];
  billingMode: string;
  perToken: boolean;
  /** service_pricing per 1,000 tokens, exactly as sent ('' when absent). */
  input: string;
  output: string;
  cacheRead: string;
  /** Other decimal-string prices (per call, second, image) under the catalog's names. */
  other: { name: string; value: string }[];
}

/** The catalog states no absolute price for the model (no `service_pricing`, as the compatible family's gateways send it): only ratios, which are not prices. */
export function isUnpriced(row: PriceRow): boolean {
  return row.input === '' && row.output === '' && row.cacheRead === '' && row.other.length === 0;
}

export function priceRow(record: JsonObject): PriceRow {
  const pricing = isJsonObject(record.service_pricing) ? record.service_pricing : {};
  let input = '';
  let output = '';
  let cacheRead = '';
  const other: PriceRow['other'] = [];
  for (const name in pricing) {
    const value = pricing[name];
    if (!isDecimalString(value)) continue;
    if (name === 'input_unit_price') input = value;
    else if (name === 'output_unit_price') output = value;
    else if (name === 'cache_read_input_price') cacheRead = value;
    else other.push({ name, value });
  }
  const mode = record.billing_mode;
  const vendor = isJsonObject(record.vendor) ? record.vendor : undefined;
  return {
    name: modelName(record),
    vendor: vendorName(record) ?? '',
    vendorKeys: lowerCaseKeys([vendor?.name, vendor?.slug, record.owner_by]),
    types: stringList(record.supported_endpoint_types),
    groups: stringList(record.enable_groups),
    billingMode: typeof mode === 'string' ? mode : '',
    perToken: mode === 'per_token' || (mode === undefined && other.length === 0),
    input,
    output,
    cacheRead,
    other,
  };
}

/** The distinct non-empty names among these, lower-cased. */
function lowerCaseKeys(names: (JsonValue | undefined)[]): string[] {
  const keys: string[] = [];
  for (const name of names) {
    if (typeof name !== 'string' || name === '') continue;
    const key = name.toLowerCase();
    if (!keys.includes(key)) keys.push(key);
  }
  return keys;
}

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

/**
 * A token price as listings show it: per-token models show all three (a zero is free); models
 * billed otherwise (per call, second, image) show a token price only when it is not zero.
 */
export function shownTokenPrice(row: PriceRow, per1K: string): string {
  if (per1K === '') return '';
  return row.perToken || !/^-?[0.]*$/.test(per1K) ? per1K : '';
}

function isStrings(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (typeof item !== 'string') return false;
  return true;
}

export interface CatalogFilter {
  model?: string;
  vendor?: string;
  type?: string;
  group?: string;
}

/** The rows that pass every filter; `checkDeadline` is called now and then (a glob over long names is real work). */
export function filterRows(rows: PriceRow[], filter: CatalogFilter, checkDeadline: () => void = () => undefined): PriceRow[] {
  const model = filter.model ? globMatcher(filter.model) : undefined;
  const vendor = filter.vendor?.toLowerCase();
  let seen = 0;
  return rows.filter((row) => {
    if ((++seen & 255) === 0) checkDeadline();
    if (model && !model(row.name)) return false;
    if (vendor !== undefined && !row.vendorKeys.includes(vendor)) return false;
    if (filter.type && !row.types.includes(filter.type)) return false;
    if (filter.group && !row.groups.includes(filter.group)) return false;
    return true;
  });
}

export type SortKey = 'name' | 'input' | 'output';

/** Sorted copy: by name, or by a price (cheapest first, models without that price last). */
export function sortRows(rows: PriceRow[], key: SortKey): PriceRow[] {
  if (key === 'name') {
    // Listings come in name order (the cached listing is kept so): then this is one pass.
    const sorted = rows.slice();
    for (let i = 1; i < sorted.length; i++) if (compareText(sorted[i - 1]!.name, sorted[i]!.name) > 0) return sorted.sort((a, b) => compareText(a.name, b.name));
    return sorted;
  }
  // By the price shown: a model without one (or billed otherwise, at zero) goes last.
  const price = (row: PriceRow) => shownTokenPrice(row, key === 'input' ? row.input : row.output);
  return [...rows].sort((a, b) => {
    const x = price(a);
    const y = price(b);
    if (x === '' || y === '') return x !== '' ? -1 : y !== '' ? 1 : compareText(a.name, b.name);
    return compareDecimalText(x, y) || compareText(a.name, b.name);
  });
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface CatalogChange {
  model: string;
  kind: 'added' | 'removed' | 'repriced';
  /** For repriced: field -> [before, after] (decimal strings as sent). */
  prices?: Record<string, [string | null, string | null]>;
}

/** Models added, removed and re-priced (any service_pricing value changed) between two catalogs. */
/** Records compared between two pauses (a pause lets Ctrl-C and --timeout be heard). */
const DIFF_SLICE = 5000;

/**
 * What changed between two catalogs. `pause`, when given, is awaited every few thousand records:
 * comparing hundreds of thousands of models is long enough that an interrupt must be heard.
 */
export async function diffCatalogs(before: JsonObject[], after: JsonObject[], pause?: () => Promise<void>): Promise<CatalogChange[]> {
  const old = new Map(before.map((r) => [modelName(r), r]));
  const now = new Map(after.map((r) => [modelName(r), r]));
  const changes: CatalogChange[] = [];
  let seen = 0;
  for (const [name, record] of now) {
    if (pause && ++seen % DIFF_SLICE === 0) await pause();
    const previous = old.get(name);
    if (!previous) {
      changes.push({ model: name, kind: 'added' });
      continue;
    }
    const a = isJsonObject(previous.service_pricing) ? previous.service_pricing : {};
    const b = isJsonObject(record.service_pricing) ? record.service_pricing : {};
    const prices: Record<string, [string | null, string | null]> = {};
    for (const field of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const x = isDecimalString(a[field]) ? (a[field] as string) : null;
      const y = isDecimalString(b[field]) ? (b[field] as string) : null;
      const same = x !== null && y !== null ? compareDecimalText(x, y) === 0 : x === y;
      if (!same) prices[field] = [x, y];
    }
    if (Object.keys(prices).length > 0) changes.push({ model: name, kind: 'repriced', prices });
  }
  for (const name of old.keys()) if (!now.has(name)) changes.push({ model: name, kind: 'removed' });
  return changes.sort((x, y) => compareText(x.model, y.model));
}

/** Reasoning levels in the spec's order; "always on" when `none` is absent. */
const EFFORT_ORDER = ['none', 'low', 'medium', 'high', 'xhigh'];
export function reasoningLabel(efforts: string[]): string {
  if (efforts.length === 0) return '';
  const known = EFFORT_ORDER.filter((e) => efforts.includes(e));
  const unknown = efforts.filter((e) => !EFFORT_ORDER.includes(e));
  const levels = [...known, ...unknown];
  if (levels.length === 1 && levels[0] === 'none') return 'none';
  const shown = levels.filter((e) => e !== 'none').join(', ');
  return efforts.includes('none') ? `optional: ${shown}` : `always on: ${shown}`;
}
