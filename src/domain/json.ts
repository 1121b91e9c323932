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

// Number tokens a double cannot give back as written: an exponent, a trailing zero after the
// point, six zeros after the point (a double prints those with an exponent), or minus zero.
// Only what stands before a delimiter (`,` `}` `]`) or the end is a number token; text inside
// a string is followed by a quote. A match inside a string is a false alarm, which only costs
// the slow path.
const ALTERED = /(?:\d[eE][+-]?\d+|\.\d*0|\.0{6,}\d*|-0(?:\.0+)?)\s*(?:[,}\]]|$)/;
// Tokens of 16 or more digits may or may not survive a double: each is checked.
const LONG_NUMBER = /-?\d(?:\.?\d){15,}(?=\s*(?:[,}\]]|$))/g;
const KEY_END = /"\s*:/g;

/**
 * JSON.parse, when it provably gives the same values as the lossless parser: no number that a
 * double would alter, and no duplicate key (JSON.parse keeps the last silently). A duplicate
 * leaves fewer keys in the result than key endings in the text, which sends it down the slow
 * path, where it is rejected. Several times faster on large catalogs and usage series.
 */
function parseExactWithNative(text: string): JsonValue | undefined {
  if (ALTERED.test(text)) return undefined;
  for (const [token] of text.matchAll(LONG_NUMBER)) {
    if (String(Number(token)) !== token) return undefined;
  }
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  const keyEnds = text.match(KEY_END)?.length ?? 0;
  return countKeys(value) === keyEnds ? value : undefined;
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

/** Serialises with every number exactly as received. */
export function stringifyJson(value: unknown, indent?: number): string {
  return stringify(value, undefined, indent) ?? 'null';
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

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}
