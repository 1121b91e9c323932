// Records whose shape the service does not publish (per-model usage, per-call logs): find the
// array that holds them and an obvious continuation, and describe their columns.
import { isDecimalString } from './decimal-text.js';
import { type JsonObject, type JsonValue, isJsonNumber, isJsonObject, numberText } from './json.js';

const PREFERRED_ARRAYS = ['data', 'items', 'records', 'results', 'logs', 'models', 'list', 'rows', 'entries'];

/**
 * The array of records in a response: the response itself, a well-known field, the largest
 * array of objects, or the same one level down (`{"data": {"items": [...]}}`).
 */
export function findRecords(body: JsonValue): { key: string | undefined; records: JsonObject[] } | undefined {
  if (Array.isArray(body)) return body.every(isJsonObject) ? { key: undefined, records: body as JsonObject[] } : undefined;
  if (!isJsonObject(body)) return undefined;
  const arrays = Object.entries(body).filter((entry): entry is [string, JsonValue[]] => Array.isArray(entry[1]) && entry[1].every(isJsonObject));
  if (arrays.length === 0) {
    for (const [key, value] of Object.entries(body)) {
      if (!isJsonObject(value)) continue;
      const inner = findRecords(value);
      if (inner && inner.key !== undefined) return { key, records: inner.records };
    }
    return undefined;
  }
  const preferred = arrays.find(([key]) => PREFERRED_ARRAYS.includes(key.toLowerCase()));
  const [key, records] = preferred ?? arrays.reduce((a, b) => (b[1].length > a[1].length ? b : a));
  return { key, records: records as JsonObject[] };
}

export type Continuation =
  /** `also`: more parameters that go with it (a page number sent under each name lists use, the page size). */
  | { kind: 'param'; name: string; value: string; field: string; also?: Record<string, string> }
  | { kind: 'url'; url: string; field: string }
  /** The response says more exists (`has_more: true`) but offers no continuation tally recognises. */
  | { kind: 'unrecognised'; field: string };

// next_cursor -> cursor, next_page_token -> page_token, nextPageToken -> pageToken, next_page -> page.
const CONTINUATIONS: [field: RegExp, param: (field: string) => string][] = [
  [/^next_?cursor$/i, () => 'cursor'],
  [/^next_page_token$/, () => 'page_token'],
  [/^nextPageToken$/, () => 'pageToken'],
  [/^next_?page$/i, () => 'page'],
  [/^cursor$/i, () => 'cursor'],
  [/^next$/i, () => 'cursor'],
  [/^next_?(page_?)?(url|link|href)$/i, () => 'cursor'],
];

const PAGINATION_OBJECTS = /^(pagination|paging|page_info|pageInfo|meta|links|data)$/;

/** An obvious way to the next page, if the response offers one (at the top or in a pagination object). */
export function findContinuation(body: JsonValue): Continuation | undefined {
  if (!isJsonObject(body)) return undefined;
  if (body.has_more === false || body.hasMore === false) return undefined;
  for (const [field, value] of Object.entries(body)) {
    const rule = CONTINUATIONS.find(([pattern]) => pattern.test(field));
    if (!rule) continue;
    if (typeof value === 'string' && value !== '') {
      if (/^(https?:\/\/|\/)/.test(value)) return { kind: 'url', url: value, field };
      return { kind: 'param', name: rule[1](field), value, field };
    }
    if (isJsonNumber(value)) return { kind: 'param', name: rule[1](field), value: numberText(value), field };
  }
  const numbered = pageNumberContinuation(body);
  if (numbered) return numbered;
  let unrecognised: Continuation | undefined;
  for (const [field, value] of Object.entries(body)) {
    if (!PAGINATION_OBJECTS.test(field) || !isJsonObject(value)) continue;
    const inner = findContinuation(value);
    if (inner?.kind === 'unrecognised') unrecognised ??= { kind: 'unrecognised', field: `${field}.${inner.field}` };
    else if (inner) return { ...inner, field };
  }
  const more = MORE_FLAGS.find((flag) => body[flag] === true);
  return unrecognised ?? (more === undefined ? undefined : { kind: 'unrecognised', field: more });
}

const PAGE_FIELDS = ['page', 'current_page', 'currentPage', 'page_no', 'pageNo', 'page_num', 'pageNum', 'p'];
const SIZE_FIELDS = ['page_size', 'pageSize', 'per_page', 'perPage', 'size', 'limit'];
const TOTAL_FIELDS = ['total', 'total_count', 'totalCount', 'total_items', 'totalItems', 'count'];
const PAGES_FIELDS = ['total_pages', 'totalPages', 'pages', 'page_count', 'pageCount', 'last_page', 'lastPage'];

/**
 * Lists paged by page number (`{"page", "page_size", "total", "items"}`, as the compatible family's
 * gateways send them): more exists while the page is before the last, or fewer records than the
 * total were seen so far. The next page is asked under both names such lists use (`p`, `page`),
 * with the page size the list stated.
 */
function pageNumberContinuation(body: JsonObject): Continuation | undefined {
  const number = (names: string[]) => {
    for (const name of names) {
      const value = body[name];
      const n = isJsonNumber(value) ? Number(numberText(value)) : typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
      if (n !== undefined && Number.isSafeInteger(n) && n >= 0) return { name, n };
    }
    return undefined;
  };
  const page = number(PAGE_FIELDS);
  if (!page) return undefined;
  const size = number(SIZE_FIELDS);
  const total = number(TOTAL_FIELDS);
  const pages = number(PAGES_FIELDS);
  // Pages counted from 0 or from 1: the page after this one either way.
  const through = size && size.n > 0 ? (page.n === 0 ? 1 : page.n) * size.n : undefined;
  const more = pages ? page.n < pages.n - (page.n === 0 ? 1 : 0) : total && through !== undefined ? through < total.n : false;
  if (!more) return undefined;
  const next = String(page.n + 1);
  const also: Record<string, string> = { p: next, page: next };
  if (size) also[size.name] = String(size.n);
  return { kind: 'param', name: page.name, value: next, field: page.name, also };
}

/** Fields that say more pages exist. */
const MORE_FLAGS = ['has_more', 'hasMore', 'has_next', 'hasNext', 'more'];

export interface RecordColumn {
  name: string;
  kind: 'money' | 'number' | 'time' | 'text';
}

const TIME_NAME = /(^|_)(at|time|timestamp|date|ts)$|At$/;

/** Unix seconds of a time field: epoch seconds or milliseconds, or a date text; undefined when it is none of those. */
export function timeSeconds(value: JsonValue | undefined): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = isJsonNumber(value) ? Number(numberText(value)) : typeof value === 'string' ? Date.parse(value) / 1000 : Number.NaN;
  if (!Number.isFinite(n)) return undefined;
  return n > 1e11 ? n / 1000 : n;
}

/** Whether a field is named as a time (`created_at`, `ts`): never added up, whatever it holds. */
export function isTimeName(name: string): boolean {
  return TIME_NAME.test(name);
}

/** Columns in first-seen order: decimal strings are money (yuan), epoch values under a time-like name are times. */
export function describeColumns(records: JsonObject[]): RecordColumn[] {
  const columns = new Map<string, RecordColumn['kind'][]>();
  for (const record of records) {
    for (const [name, value] of Object.entries(record)) {
      const kinds = columns.get(name) ?? [];
      if (value !== null && value !== undefined) kinds.push(kindOf(name, value));
      columns.set(name, kinds);
    }
  }
  return [...columns.entries()].map(([name, kinds]) => ({
    name,
    kind: kinds.length > 0 && kinds.every((k) => k === kinds[0]) ? kinds[0]! : 'text',
  }));
}

function kindOf(name: string, value: JsonValue): RecordColumn['kind'] {
  if (isDecimalString(value)) return 'money';
  if (isJsonNumber(value)) {
    const n = Number(numberText(value));
    if (TIME_NAME.test(name) && Number.isInteger(n) && ((n > 946_684_800 && n < 4_102_444_800) || (n > 946_684_800_000 && n < 4_102_444_800_000))) return 'time';
    return 'number';
  }
  if (typeof value === 'string' && TIME_NAME.test(name) && !Number.isNaN(Date.parse(value))) return 'time';
  return 'text';
}

/** Whose figures an aggregate answer holds, when the gateway says: the whole account's, or the calling key's. */
export type Scope = 'account' | 'key';

/**
 * The scope an answer states in a top-level `scope` field (the name this gateway family uses for
 * it, as in its 429 bodies): account or user figures, or those of the key or token that asked.
 * Undefined when it says nothing tally recognises.
 */
export function scopeOf(body: JsonValue): Scope | undefined {
  if (!isJsonObject(body) || typeof body.scope !== 'string') return undefined;
  const scope = body.scope.trim().toLowerCase();
  if (scope === 'account' || scope === 'user') return 'account';
  if (scope === 'key' || scope === 'api_key' || scope === 'apikey' || scope === 'token') return 'key';
  return undefined;
}

/** What a total covers, in words, for a note under a table. */
export function scopeText(scope: Scope | undefined): string | undefined {
  if (scope === 'account') return 'figures of the whole account (every key), as the gateway states';
  if (scope === 'key') return 'figures of this key only, as the gateway states';
  return undefined;
}

/** The field names some records hold, for a message that says what came instead: at most 12, each cut to 40 characters; 'none' when they hold none. */
export function fieldNamesOf(records: object[]): string {
  return [...new Set(records.flatMap((r) => Object.keys(r)))].slice(0, 12).map((n) => n.slice(0, 40)).join(', ') || 'none';
}
