// JSON without binary floats: every number keeps the exact text it was sent as.
import { LosslessNumber, isLosslessNumber, parse, stringify } from 'lossless-json';

export { LosslessNumber, isLosslessNumber };

export type JsonValue = null | boolean | string | LosslessNumber | number | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * Parses untrusted JSON without losing a digit. Numbers come back as LosslessNumber (their
 * exact text kept), or as plain numbers when the text proves a double reproduces them
 * exactly; a duplicate key or any syntax error throws.
 */
export function parseJson(text: string): JsonValue {
  return parseExactWithNative(text) ?? (parse(text) as JsonValue);
}

// Number tokens a double cannot give back as written (group 1): an exponent, a trailing zero
// after the point, six zeros after the point (a double prints those with an exponent), or
// minus zero; and tokens of 16 or more digits (group 2), which may or may not survive and are
// checked one by one. Only what stands before a delimiter (`,` `}` `]`) or the end is a
// number token; text inside a string is followed by a quote. A match inside a string is a
// false alarm, which only costs the slow path.
const SUSPECT_NUMBER = /(\d[eE][+-]?\d+|\.\d*0|\.0{6,}\d*|-0(?:\.0+)?)\s*(?:[,}\]]|$)|(-?\d(?:\.?\d){15,})(?=\s*(?:[,}\]]|$))/g;

/**
 * JSON.parse, when it provably gives the same values as the lossless parser: no number that a
 * double would alter, and no duplicate key (JSON.parse keeps the last silently). Compact text
 * that JSON.stringify writes back byte for byte proves both at once (what most services and
 * tally's own cache send); otherwise no suspect number token, and as many keys in the result
 * as key endings in the text (a duplicate leaves fewer, and goes to the slow path, where it
 * is rejected). Several times faster than the lossless parser on large documents.
 */
function parseExactWithNative(text: string): JsonValue | undefined {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  if (JSON.stringify(value) === text) return value;
  for (const [, altered, long] of text.matchAll(SUSPECT_NUMBER)) {
    if (altered !== undefined || String(Number(long)) !== long) return undefined;
  }
  return countKeys(value) === countKeyEnds(text) ? value : undefined;
}

/** Colons that follow a quote (and optional blanks): every key ends so, and a few strings do. */
function countKeyEnds(text: string): number {
  let count = 0;
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) {
    let before = at - 1;
    while (before >= 0 && isBlank(text.charCodeAt(before))) before--;
    if (text.charCodeAt(before) === 34) count++;
  }
  return count;
}

/** JSON whitespace: space, tab, line feed, carriage return. */
function isBlank(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

function countKeys(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += countKeys(item);
    return count;
  }
  for (const key in value) count += 1 + countKeys((value as Record<string, unknown>)[key]);
  return count;
}

/**
 * Serialises with every number exactly as received. Values that hold no LosslessNumber (what
 * the fast parse path gives) go through the native serialiser, which writes the same text
 * several times faster.
 */
export function stringifyJson(value: unknown, indent?: number): string {
  if (!holdsLosslessNumber(value)) return JSON.stringify(value, undefined, indent) ?? 'null';
  return stringify(value, undefined, indent) ?? 'null';
}

function holdsLosslessNumber(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (isLosslessNumber(value)) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsLosslessNumber(item)) return true;
    return false;
  }
  for (const key in value) if (holdsLosslessNumber((value as Record<string, unknown>)[key])) return true;
  return false;
}

export function isJsonNumber(value: unknown): value is LosslessNumber | number {
  return isLosslessNumber(value) || typeof value === 'number';
}

/** The exact text of a JSON number. */
export function numberText(value: LosslessNumber | number): string {
  return isLosslessNumber(value) ? value.value : String(value);
}

/** A JSON number as a safe integer, or undefined when it is not one. */
export function safeInteger(value: unknown): number | undefined {
  if (!isJsonNumber(value)) return undefined;
  const n = Number(numberText(value));
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A JSON value as one cell of text: strings as they are, numbers exactly, the rest as JSON. */
export function jsonText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (isJsonNumber(value)) return numberText(value);
  return typeof value === 'string' ? value : stringifyJson(value);
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}

/**
 * An empty object for fields named by the service: without a prototype, a field called
 * `__proto__` is an ordinary key (on a plain object, assigning it would replace the prototype).
 */
export function newRecord(): JsonObject {
  return Object.create(null) as JsonObject;
}
