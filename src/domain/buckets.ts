// Usage buckets whose field names the service does not publish: find the time field by its
// value, treat other numeric and decimal-string fields as metrics, infer the day grid, and
// fill the buckets the service left out without touching the ones it sent.
import { isDecimalString } from './decimal-text.js';
import { type JsonObject, type JsonValue, LosslessNumber, isJsonNumber, numberText } from './json.js';
import type { BucketGrid, UsageWindow } from './time.js';

export type TimeFormat =
  | { kind: 'unix-seconds'; asString: boolean }
  | { kind: 'unix-millis'; asString: boolean }
  | { kind: 'iso'; layout: IsoLayout };

/** How an ISO-8601 time is written, so filled buckets are written the same way. */
export interface IsoLayout {
  dateOnly: boolean;
  separator: 'T' | ' ';
  seconds: boolean;
  fraction: number;
  /** The zone suffix as written (`Z`, `+08:00`, `+0800`) or '' for none. */
  zone: string;
  /** Seconds east of UTC the wall-clock part is written in. */
  zoneOffset: number;
}

export interface MetricField {
  name: string;
  type: 'number' | 'decimal-string';
  /** Decimal places seen (for writing a zero of the same shape). */
  scale: number;
}

export interface BucketShape {
  /** The field that holds the bucket's start. */
  timeField: string;
  timeFormat: TimeFormat;
  /** Other time-valued fields (a bucket end, say): excluded from metrics. */
  otherTimeFields: { name: string; format: TimeFormat; delta: number }[];
  metrics: MetricField[];
  /** The first decimal-string metric: what money the buckets hold. */
  moneyMetric: string | undefined;
  /** Field order of the first bucket, for filled ones. */
  fieldOrder: string[];
}

/** The time a value denotes, in Unix seconds, when it looks like a time at all. */
export function readTime(value: JsonValue | undefined): { seconds: number; format: TimeFormat } | undefined {
  if (isJsonNumber(value)) return readEpoch(numberText(value), false);
  if (typeof value !== 'string') return undefined;
  if (/^\d+$/.test(value)) return readEpoch(value, true);
  return readIso(value);
}

const SECONDS_RANGE = [946_684_800, 4_102_444_800]; // 2000-01-01 .. 2100-01-01
function readEpoch(text: string, asString: boolean): { seconds: number; format: TimeFormat } | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  if (n >= SECONDS_RANGE[0]! && n < SECONDS_RANGE[1]!) return { seconds: n, format: { kind: 'unix-seconds', asString } };
  if (n >= SECONDS_RANGE[0]! * 1000 && n < SECONDS_RANGE[1]! * 1000 && n % 1000 === 0) {
    return { seconds: n / 1000, format: { kind: 'unix-millis', asString } };
  }
  return undefined;
}

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:([T ])(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(Z|[+-]\d{2}:?\d{2})?$/;
function readIso(text: string): { seconds: number; format: TimeFormat } | undefined {
  const m = ISO_TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, sep, h, mi, s, frac, zone] = m;
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0)) / 1000;
  if (!Number.isFinite(utc)) return undefined;
  const zoneOffset = zone === undefined || zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.replace(':', '').slice(1, 3)) * 3600 + Number(zone.replace(':', '').slice(3, 5)) * 60);
  return {
    seconds: utc - zoneOffset,
    format: {
      kind: 'iso',
      layout: { dateOnly: sep === undefined, separator: (sep as 'T' | ' ') ?? 'T', seconds: s !== undefined, fraction: frac?.length ?? 0, zone: zone ?? '', zoneOffset },
    },
  };
}

/** The Unix seconds a bucket's time value denotes (cheap: no format is worked out). */
export function timeOf(value: JsonValue | undefined): number {
  if (typeof value === 'number') return value >= SECONDS_RANGE[1]! ? value / 1000 : value;
  return readTime(value)!.seconds;
}

/** Writes a time in a discovered format. */
export function writeTime(seconds: number, format: TimeFormat): JsonValue {
  switch (format.kind) {
    // Whole seconds (and milliseconds) are safe integers: a plain number prints exactly.
    case 'unix-seconds': return format.asString ? String(seconds) : seconds;
    case 'unix-millis': return format.asString ? String(seconds * 1000) : seconds * 1000;
    case 'iso': {
      const { layout } = format;
      const wall = new Date((seconds + layout.zoneOffset) * 1000).toISOString();
      if (layout.dateOnly) return wall.slice(0, 10);
      let text = `${wall.slice(0, 10)}${layout.separator}${wall.slice(11, layout.seconds ? 19 : 16)}`;
      if (layout.fraction > 0) text += `.${'0'.repeat(layout.fraction)}`;
      return text + layout.zone;
    }
  }
}

/** Finds the time field and the metrics of a set of buckets; undefined when there are none. */
export function discoverShape(buckets: JsonObject[]): BucketShape | undefined {
  const first = buckets[0];
  if (!first) return undefined;
  // Time fields: those whose value reads as a time in every bucket.
  // Candidates from the first bucket, then checked against the rest (usually just one).
  const timeNames = Object.keys(first)
    .filter((name) => readTime(first[name]) !== undefined)
    .filter((name) => buckets.every((b) => readTime(b[name]) !== undefined));
  // The bucket start sits on the grid (whole minutes at least) and is the earliest of them
  // (an `end` field, if any, is later).
  const onGrid = timeNames.filter((name) => buckets.every((b) => readTime(b[name])!.seconds % 60 === 0));
  if (onGrid.length === 0) return undefined;
  const timeField = onGrid.reduce((a, b) => (readTime(first[b])!.seconds < readTime(first[a])!.seconds ? b : a));
  const start = readTime(first[timeField])!;
  const otherTimeFields = timeNames
    .filter((name) => name !== timeField)
    .map((name) => {
      const other = readTime(first[name])!;
      return { name, format: other.format, delta: other.seconds - start.seconds };
    });
  const metrics = new Map<string, MetricField>();
  const order = new Set<string>();
  const times = new Set(timeNames);
  for (const bucket of buckets) {
    for (const name in bucket) {
      order.add(name);
      if (times.has(name)) continue;
      const value = bucket[name];
      const type = isJsonNumber(value) ? 'number' : isDecimalString(value) ? 'decimal-string' : undefined;
      if (!type) continue;
      const text = isJsonNumber(value) ? numberText(value) : (value as string);
      const dot = text.indexOf('.');
      const scale = dot < 0 ? 0 : text.length - dot - 1;
      const known = metrics.get(name);
      if (!known) metrics.set(name, { name, type, scale });
      else if (scale > known.scale) known.scale = scale;
    }
  }
  const list = [...metrics.values()];
  return {
    timeField,
    timeFormat: start.format,
    otherTimeFields,
    metrics: list,
    moneyMetric: list.find((m) => m.type === 'decimal-string')?.name,
    fieldOrder: [...order],
  };
}

/**
 * The grid the buckets sit on: their start times modulo the bucket size give the offset.
 * Undefined when no bucket says (the caller falls back to --utc-offset or UTC).
 */
export function inferGridOffset(buckets: JsonObject[], shape: BucketShape, size: number): number | undefined {
  const counts = new Map<number, number>();
  for (const bucket of buckets) {
    const t = timeOf(bucket[shape.timeField]);
    const offset = normaliseOffset(-t, size);
    counts.set(offset, (counts.get(offset) ?? 0) + 1);
  }
  let best: number | undefined;
  for (const [offset, count] of counts) if (best === undefined || count > counts.get(best)!) best = offset;
  return best;
}

/** An offset in seconds east of UTC, folded into (-12h, +14h] for days. */
function normaliseOffset(value: number, size: number): number {
  let offset = ((value % size) + size) % size;
  if (size === 86_400 && offset > 14 * 3600) offset -= 86_400;
  return offset;
}

/** Builds zero buckets for a shape: same fields in the same order, zeros of the same type. */
type FieldFiller = { name: string; time: TimeFormat; delta: number } | { name: string; zero: JsonValue };

export function zeroBucketMaker(shape: BucketShape): (seconds: number) => JsonObject {
  const fields = shape.fieldOrder.map((name): FieldFiller => {
    if (name === shape.timeField) return { name, time: shape.timeFormat, delta: 0 };
    const other = shape.otherTimeFields.find((f) => f.name === name);
    if (other) return { name, time: other.format, delta: other.delta };
    const metric = shape.metrics.find((m) => m.name === name);
    return { name, zero: metric ? zeroOf(metric) : null };
  });
  return (seconds) => {
    const bucket: JsonObject = {};
    for (const field of fields) bucket[field.name] = 'time' in field ? writeTime(seconds + field.delta, field.time) : field.zero;
    return bucket;
  };
}

function zeroOf(metric: MetricField): JsonValue {
  const text = metric.scale > 0 ? `0.${'0'.repeat(metric.scale)}` : '0';
  if (metric.type === 'decimal-string') return text;
  // A plain 0 prints as 0; a zero with decimals ("0.00") keeps them through LosslessNumber.
  return metric.scale > 0 ? new LosslessNumber(text) : 0;
}

/**
 * Every bucket of [start, end) on the grid, in time order: the service's buckets exactly as
 * sent, zero buckets where it sent none. Buckets it sent outside the window are kept too.
 */
export function fillMissingBuckets(buckets: JsonObject[], shape: BucketShape | undefined, window: UsageWindow, grid: BucketGrid): JsonObject[] {
  if (!shape) return buckets;
  const timed = buckets.map((bucket) => ({ bucket, t: timeOf(bucket[shape.timeField]) })).sort((a, b) => a.t - b.t);
  const makeZero = zeroBucketMaker(shape);
  const result: JsonObject[] = [];
  let next = 0;
  // Merge the sorted real buckets with the grid points they leave empty.
  for (let t = window.start; t < window.end; t += grid.size) {
    let present = false;
    while (next < timed.length && timed[next]!.t <= t) {
      if (timed[next]!.t === t) present = true;
      result.push(timed[next++]!.bucket);
    }
    if (!present) result.push(makeZero(t));
  }
  while (next < timed.length) result.push(timed[next++]!.bucket);
  return result;
}
