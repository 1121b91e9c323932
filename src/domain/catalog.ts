// The price catalog's rules: prices come from `service_pricing` (yuan per 1,000 tokens, or per
// call), never from the ratios; `owned_by` of the model list means nothing.
import { compareDecimalText, isDecimalString } from './decimal-text.js';
import { type JsonObject, type JsonValue, isJsonNumber, isJsonObject, numberText } from './json.js';
import { globMatcher } from './glob.js';

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

// Gateways of the compatible family name a record's vendor by a number (`vendor_id`) into a
// top-level `vendors` list. Records stay exactly as sent (--json prints them unchanged); the name
// each id stands for is kept beside them, here.
const vendorByRecord = new WeakMap<JsonObject, string>();

/** Learns the names a catalog's `vendors` list gives its records' `vendor_id`s. */
export function learnVendors(body: JsonObject, records: JsonObject[]): void {
  if (!Array.isArray(body.vendors)) return;
  const names = new Map<string, string>();
  for (const v of body.vendors) {
    if (!isJsonObject(v) || typeof v.name !== 'string' || v.name === '') continue;
    const id = typeof v.id === 'string' ? v.id : isJsonNumber(v.id) ? numberText(v.id) : undefined;
    if (id !== undefined) names.set(id, v.name);
  }
  if (names.size === 0) return;
  for (const record of records) {
    const id = typeof record.vendor_id === 'string' ? record.vendor_id : isJsonNumber(record.vendor_id) ? numberText(record.vendor_id) : undefined;
    const name = id === undefined ? undefined : names.get(id);
    if (name !== undefined) vendorByRecord.set(record, name);
  }
}

/** The vendor's name: `vendor.name`, else the name of its `vendor_id` in the catalog's vendors list, else `owner_by` (the catalog fills it in). */
export function vendorName(record: JsonObject): string | undefined {
  if (isJsonObject(record.vendor) && typeof record.vendor.name === 'string') return record.vendor.name;
  const listed = vendorByRecord.get(record);
  if (listed !== undefined) return listed;
  return typeof record.owner_by === 'string' && record.owner_by !== '' ? record.owner_by : undefined;
}

export function stringList(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
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
    vendorKeys: lowerCaseKeys([vendor?.name, vendor?.slug, vendorByRecord.get(record), record.owner_by]),
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
 * A token price as listings show it: per-token models show all three (a zero is free); models
 * billed otherwise (per call, second, image) show a token price only when it is not zero.
 */
export function shownTokenPrice(row: PriceRow, per1K: string): string {
  if (per1K === '') return '';
  return row.perToken || !/^-?[0.]*$/.test(per1K) ? per1K : '';
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

/** A listed model's context window in tokens (0 when the record states none). */
export const contextOf = (m: JsonObject): number => (isJsonNumber(m.context_window) ? Number(numberText(m.context_window)) : 0);

/** Whether a listed model can reason: a reasoning level other than none. */
export const canReason = (m: JsonObject): boolean => stringList(m.reasoning_efforts).some((level) => level !== 'none');
