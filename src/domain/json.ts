// JSON without binary floats: every number keeps the exact text it was sent as.
import { LosslessNumber as LosslessNumberBase, isLosslessNumber, parse, stringify } from 'lossless-json';

export { isLosslessNumber };

/**
 * Whether any number object exists in this process: until the lossless parser runs or tally
 * makes one (a zero with decimals, a total), every parsed value holds plain numbers only, and
 * serialising needs no look through it first.
 */
let exactNumbersMade = false;

/** A JSON number kept as its exact text. Every one tally makes is made here (see exactNumbersMade). */
export class LosslessNumber extends LosslessNumberBase {
  constructor(text: string) {
    super(text);
    exactNumbersMade = true;
  }
}

export type JsonValue = null | boolean | string | LosslessNumberBase | number | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * Parses untrusted JSON without losing a digit. Numbers come back as LosslessNumber (their
 * exact text kept), or as plain numbers when the text proves a double reproduces them
 * exactly; a duplicate key or any syntax error throws.
 */
export function parseJson(text: string): JsonValue {
  const native = parseExactWithNative(text);
  if (native !== undefined) return native;
  exactNumbersMade = true;
  return parse(text) as JsonValue;
}

/**
 * JSON.parse, when it provably gives the same values as the lossless parser: every number
 * token reads back through a double as written, and the result has as many keys as the text
 * (JSON.parse keeps the last of a duplicate silently; a duplicate leaves fewer, and goes to the
 * slow path, where it is rejected). One pass over the text proves both, allocating nothing (a
 * page of 200,000 log entries is read 1,000 at a time: a proof that wrote a copy of each page
 * cost memory that grew with the log). Several times faster than the lossless parser.
 */
function parseExactWithNative(text: string): JsonValue | undefined {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  const keys = exactKeyCount(text);
  if (keys === undefined) return undefined;
  const found = value !== null && typeof value === 'object' ? countKeys(value) : 0;
  return found === keys ? value : undefined;
}

/**
 * In JSON text that JSON.parse accepted: how many keys it holds (strings followed by a colon),
 * or undefined when a number token may not read back as written. Doubles print the same digits
 * for up to 15 significant ones, and without an exponent from 1e-6 up to 1e21; a fraction's
 * trailing zero, an exponent and minus zero are lost. Anything else (more digits) is checked
 * one token at a time. When in doubt, undefined: the lossless parser is always right.
 */
export function exactKeyCount(text: string): number | undefined {
  // The character tests are written out rather than called: this runs once over megabytes
  // (a 5,000-model catalog is 3 MB) mostly before V8 has optimised it, where a call per
  // character costs more than the test itself.
  let keys = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = text.indexOf('"', i + 1);
      // A quote after an odd number of backslashes is inside the string.
      while (end > 0 && text.charCodeAt(end - 1) === BACKSLASH) {
        let back = end - 2;
        while (text.charCodeAt(back) === BACKSLASH) back--;
        if ((end - 1 - back) % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end < 0) return undefined; // never closed: not text JSON.parse accepted
      let next = end + 1;
      let after = text.charCodeAt(next);
      // JSON whitespace (space, tab, line feed, carriage return) may stand before a key's colon.
      while (after === 32 || after === 9 || after === 10 || after === 13) after = text.charCodeAt(++next);
      if (after === COLON) keys++;
      i = next;
      continue;
    }
    if (c !== MINUS && (c < ZERO || c > NINE)) {
      i++;
      continue;
    }
    const start = i;
    let j = c === MINUS ? i + 1 : i;
    const intStart = j;
    let d = text.charCodeAt(j);
    while (d >= ZERO && d <= NINE) d = text.charCodeAt(++j);
    const intDigits = j - intStart;
    const zeroInt = intDigits === 1 && text.charCodeAt(intStart) === ZERO;
    let fraction = 0;
    let leadingZeros = 0;
    if (d === DOT) {
      const fracStart = ++j;
      d = text.charCodeAt(j);
      while (d >= ZERO && d <= NINE) d = text.charCodeAt(++j);
      fraction = j - fracStart;
      if (text.charCodeAt(j - 1) === ZERO) return undefined; // 1.50 reads back as 1.5
      if (zeroInt) {
        while (text.charCodeAt(fracStart + leadingZeros) === ZERO) leadingZeros++;
        if (leadingZeros >= 6) return undefined; // 0.0000001 reads back as 1e-7
      }
    }
    if (d === LOWER_E || d === UPPER_E) return undefined;
    if (c === MINUS && zeroInt && fraction === 0) return undefined; // -0 reads back as 0
    if (intDigits >= 22) return undefined; // 1e21 and up read back with an exponent
    const significant = zeroInt ? fraction - leadingZeros : intDigits + fraction;
    if (significant > 15) {
      const token = text.slice(start, j);
      if (String(Number(token)) !== token) return undefined;
    }
    i = j;
  }
  return keys;
}

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const LOWER_E = 101;
const UPPER_E = 69;

/** The keys of an object or array and of everything in it (only objects and arrays are visited). */
function countKeys(value: object): number {
  let count = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item !== null && typeof item === 'object') count += countKeys(item);
    }
    return count;
  }
  for (const key in value) {
    count++;
    const item: unknown = (value as Record<string, unknown>)[key];
    if (item !== null && typeof item === 'object') count += countKeys(item);
  }
  return count;
}

/**
 * Serialises with every number exactly as received. Values that hold no LosslessNumber (what
 * the fast parse path gives) go through the native serialiser, which writes the same text
 * several times faster.
 */
export function stringifyJson(value: unknown, indent?: number): string {
  if (!exactNumbersMade || !holdsLosslessNumber(value)) return JSON.stringify(value, undefined, indent) ?? 'null';
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

/**
 * A document as parseJson gives it back (a fleet reads each profile's --json document so): a
 * number a double holds exactly comes back as a number, any other as its exact text.
 */
export type Parsed<T> = T extends LosslessNumberBase ? JsonNumber : T extends readonly (infer U)[] ? Parsed<U>[] : T extends object ? { [K in keyof T]: Parsed<T[K]> } : T;

/** A JSON number: a plain number where a double holds it exactly, else its exact text. */
export type JsonNumber = LosslessNumberBase | number;

export function isJsonNumber(value: unknown): value is JsonNumber {
  return isLosslessNumber(value) || typeof value === 'number';
}

/** The exact text of a JSON number. */
export function numberText(value: LosslessNumberBase | number): string {
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
