// Weeks and months built exactly from day buckets: each period is a bucket with the service's
// own field names, its time field holding the period start in the service's representation, and
// its metrics summed as totals are (see mergeTotals).
import { type BucketShape, type FilledSeries, readTime, writeTime } from './buckets.js';
import { type JsonObject, newRecord } from './json.js';
import { mergeTotals } from './totals.js';

export interface Period {
  start: number;
  end: number;
}

export interface RolledUp {
  buckets: JsonObject[];
  /** Each period's start, parallel to `buckets`. */
  slots: number[];
  /** Periods without a single bucket from the service. */
  empty: number;
}

/**
 * One bucket per period from the day buckets whose grid point falls in it. `realDays` holds
 * the indexes of `days.buckets` the service sent (the others were filled).
 */
export function rollUp(days: FilledSeries, realDays: Set<number>, shape: BucketShape, periods: Period[]): RolledUp {
  const buckets: JsonObject[] = [];
  const slots: number[] = [];
  let empty = 0;
  let at = 0;
  const times = new Set([shape.timeField, ...shape.otherTimeFields.map((f) => f.name)]);
  for (const period of periods) {
    while (at < days.slots.length && days.slots[at]! < period.start) at++;
    const members: JsonObject[] = [];
    let real = false;
    const first = at;
    while (at < days.slots.length && days.slots[at]! < period.end) {
      members.push(days.buckets[at]!);
      if (realDays.has(at)) real = true;
      at++;
    }
    if (!real) empty++;
    // The period's time is written as its first day's is: same layout, zone and distance from the grid.
    const firstDay = members[0];
    const time = firstDay ? readTime(firstDay[shape.timeField]) : undefined;
    const deviation = time ? time.seconds - days.slots[first]! : 0;
    const format = time?.format ?? shape.timeFormat;
    const sums = mergeTotals(members.map((bucket) => withoutFields(bucket, times)));
    const bucket = newRecord();
    for (const name of shape.fieldOrder) {
      if (name === shape.timeField) bucket[name] = writeTime(period.start + deviation, format);
      else {
        const other = shape.otherTimeFields.find((f) => f.name === name);
        // A field one day after the start is the bucket's end: for a period, the period's end.
        if (other) bucket[name] = writeTime((other.delta === 86_400 ? period.end : period.start + other.delta) + deviation, other.format);
        else bucket[name] = sums[name] ?? null;
      }
    }
    buckets.push(bucket);
    slots.push(period.start);
  }
  return { buckets, slots, empty };
}

function withoutFields(bucket: JsonObject, names: Set<string>): JsonObject {
  const rest = newRecord();
  for (const name of Object.keys(bucket)) if (!names.has(name)) rest[name] = bucket[name]!;
  return rest;
}
