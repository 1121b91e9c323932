// Totals of several usage windows (or of the days of a week or month), added exactly.
import { isDecimalString, plainDecimal } from './decimal-text.js';
import { Decimal } from './money.js';
import { type JsonObject, type JsonValue, LosslessNumber, isJsonNumber, newRecord, numberText } from './json.js';

const NON_ADDITIVE = /avg|mean|average|median|rate|ratio|percent|pct|share|p\d{2}|max|min|latency/i;

/** Whether a metric's totals add up across windows (counts, tokens, money do; averages do not). */
export function isAdditive(name: string): boolean {
  return !NON_ADDITIVE.test(name);
}

/**
 * Totals of several windows: additive metrics added exactly, keeping their type (a JSON
 * number stays one, a decimal string keeps the largest scale it was written with); max and min
 * kept as such; other non-additive values (averages) cannot be combined and become null, and
 * so does any other field whose parts disagree.
 */
export function mergeTotals(parts: JsonObject[]): JsonObject {
  const merged = newRecord();
  const names: string[] = [];
  const seen = new Set<string>();
  for (const part of parts) for (const name of Object.keys(part)) if (!seen.has(name)) seen.add(name), names.push(name);
  for (const name of names) {
    const values = parts.map((p) => p[name]).filter((v): v is JsonValue => v !== undefined && v !== null);
    const texts = values.map((v) => (isJsonNumber(v) ? plainDecimal(numberText(v)) : isDecimalString(v) ? v : undefined));
    if (values.length === 0 || texts.some((t) => t === undefined)) {
      merged[name] = values.length > 0 && values.every((v) => JSON.stringify(v) === JSON.stringify(values[0])) ? values[0]! : null;
      continue;
    }
    const decimals = (texts as string[]).map((t) => new Decimal(t));
    const scale = Math.max(...(texts as string[]).map((t) => (t.includes('.') ? t.length - t.indexOf('.') - 1 : 0)));
    let result: Decimal | undefined;
    if (isAdditive(name)) result = decimals.reduce((a, b) => a.plus(b));
    else if (/max/i.test(name)) result = Decimal.max(...decimals);
    else if (/min/i.test(name)) result = Decimal.min(...decimals);
    const sample = values[0];
    if (result === undefined) merged[name] = values.length === 1 ? sample! : null;
    else merged[name] = isJsonNumber(sample) ? new LosslessNumber(result.toFixed(scale)) : result.toFixed(scale);
  }
  return merged;
}
