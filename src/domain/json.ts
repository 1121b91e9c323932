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

/**
 * Whether every number in a parsed document reads back exactly through a double, so that
 * the native parser would have produced the same values (true for most service responses).
 */
export function numbersAreCanonical(value: unknown): boolean {
  if (isLosslessNumber(value)) return String(Number(value.value)) === value.value;
  if (Array.isArray(value)) return value.every(numbersAreCanonical);
  if (value !== null && typeof value === 'object') return Object.values(value).every(numbersAreCanonical);
  return true;
}

/**
 * Parses JSON that tally wrote itself. `canonical` says every number in it survives a double
 * (checked when it was written): then the native parser is exact and several times faster.
 */
export function parseTrustedJson(text: string, canonical: boolean): JsonValue {
  return canonical ? (JSON.parse(text) as JsonValue) : parseJson(text);
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
