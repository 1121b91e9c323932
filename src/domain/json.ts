// JSON without binary floats: every number keeps the exact text it was sent as.
import { LosslessNumber, isLosslessNumber, parse, stringify } from 'lossless-json';

export { LosslessNumber, isLosslessNumber };

export type JsonValue = null | boolean | string | LosslessNumber | number | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * Parses untrusted JSON. Numbers become LosslessNumber (exact text kept); a duplicate key
 * with a different value or any syntax error throws.
 */
export function parseJson(text: string): JsonValue {
  return parse(text) as JsonValue;
}

// A number token that a double would not reproduce exactly: 16+ digits, a trailing zero
// after the point, an exponent, or minus zero. Followed by what may follow a token.
const NON_CANONICAL_NUMBER = /(?:\d{16}|\.\d*0|\d[eE]|-0(?![.\d]))[\d.eE+-]*\s*[,}\]]/;

/**
 * Parses JSON that tally wrote itself (caches). When no number could lose precision,
 * the native parser is exact and several times faster; otherwise falls back to parseJson.
 */
export function parseTrustedJson(text: string): JsonValue {
  if (NON_CANONICAL_NUMBER.test(text)) return parseJson(text);
  return JSON.parse(text) as JsonValue;
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
