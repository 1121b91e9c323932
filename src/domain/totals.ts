// Totals of several usage windows, added exactly.
import { isDecimalString } from './decimal-text.js';
import { Decimal } from './money.js';
import { type JsonObject, LosslessNumber, isJsonNumber, numberText } from './json.js';

const NON_ADDITIVE = /avg|mean|average|median|rate|ratio|percent|pct|share|p\d{2}|max|min|latency/i;

/** Whether a metric's totals add up across windows (counts, tokens, money do; averages do not). */
export function isAdditive(name: string): boolean {
  return !NON_ADDITIVE.test(name);
}

/**
 * Totals of several windows: additive metrics added exactly; max/min kept as such; other
 * non-additive values (averages) cannot be combined and become null.
 */
export function mergeTotals(parts: JsonObject[]): JsonObject {
  const merged: JsonObject = {};
  const names: string[] = [];
  for (const part of parts) for (const name of Object.keys(part)) if (!names.includes(name)) names.push(name);
  for (const name of names) {
    const values = parts.map((p) => p[name]).filter((v) => v !== undefined);
    const numeric = values.every((v) => isJsonNumber(v) || isDecimalString(v));
    if (!numeric || values.length === 0) {
      merged[name] = values.length === 1 ? values[0]! : null;
      continue;
    }
    const decimals = values.map((v) => new Decimal(isJsonNumber(v) ? numberText(v) : (v as string)));
    const scale = Math.max(...values.map((v) => /\.(\d+)$/.exec(isJsonNumber(v) ? numberText(v) : (v as string))?.[1]?.length ?? 0));
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

