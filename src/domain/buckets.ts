// Usage buckets whose field names the service does not publish: find the time field by its
// value, treat other numeric and decimal-string fields as metrics, infer the day grid, and
// fill the buckets the service left out without touching the ones it sent. Anything that does
// not fit (no time field, a metric that is sometimes text, an amount beyond range) is a
// MalformedUsage naming the field, never data and never a crash.
import { isDecimalString, plainDecimal } from './decimal-text.js';
import { type JsonObject, type JsonValue, LosslessNumber, isJsonNumber, newRecord, numberText } from './json.js';
import { EARLIEST, LATEST, type UsageWindow } from './window.js';
import { moneyFieldOf } from './money-field.js';

/** A usage response that cannot be read as a series; the api layer names the host. */
export class MalformedUsage extends Error {}

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
  /** The money among the decimal-string metrics, by the one rule (domain/money-field.ts): what the buckets were charged. */
  moneyMetric: string | undefined;
  /** Every field name in first-seen order, for filled buckets. */
  fieldOrder: string[];
}

export type ReadTime = { readonly seconds: number; readonly format: TimeFormat };

// A series reads each bucket's time several times over (finding the shape, filling, the grid):
// what a value denotes is worked out once. Strings and numbers apart: "1700000000" and
// 1700000000 are the same instant written two ways.
const numberTimes = new Map<string, ReadTime | undefined>();
const stringTimes = new Map<string, ReadTime | undefined>();
const REMEMBERED = 20_000;

function remembered(cache: Map<string, ReadTime | undefined>, key: string, read: () => ReadTime | undefined): ReadTime | undefined {
  if (cache.has(key)) return cache.get(key);
  if (cache.size >= REMEMBERED) cache.clear();
  const time = read();
  cache.set(key, time);
  return time;
}

/** The time a value denotes, in Unix seconds, when it looks like a time at all. */
export function readTime(value: JsonValue | undefined): ReadTime | undefined {
  if (isJsonNumber(value)) {
    const text = numberText(value);
    return remembered(numberTimes, text, () => readEpoch(text, false));
  }
  if (typeof value !== 'string') return undefined;
  return remembered(stringTimes, value, () => (/^\d+$/.test(value) ? readEpoch(value, true) : readIso(value)));
}

function readEpoch(text: string, asString: boolean): ReadTime | undefined {
  if (!/^\d{9,13}$/.test(text)) return undefined;
  const n = Number(text);
  if (n >= EARLIEST && n < LATEST) return { seconds: n, format: { kind: 'unix-seconds', asString } };
  if (n >= EARLIEST * 1000 && n < LATEST * 1000 && n % 1000 === 0) {
    return { seconds: n / 1000, format: { kind: 'unix-millis', asString } };
  }
  return undefined;
}

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:([T ])(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/;
function readIso(text: string): ReadTime | undefined {
  const m = ISO_TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, sep, h = '0', mi = '0', s, frac, zone] = m;
  const fields = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0)] as const;
  const utc = Date.UTC(...fields) / 1000;
  const check = new Date(utc * 1000);
  if (check.getUTCMonth() !== fields[1] || check.getUTCDate() !== fields[2] || fields[3] > 23 || fields[4] > 59 || fields[5] > 59) return undefined;
  let zoneOffset = 0;
  if (zone !== undefined && zone !== 'Z') {
    const digits = zone.replace(':', '');
    const hours = Number(digits.slice(1, 3));
    const minutes = Number(digits.slice(3, 5));
    if (hours > 14 || minutes > 59) return undefined;
    zoneOffset = (zone.startsWith('-') ? -1 : 1) * (hours * 3600 + minutes * 60);
  }
  const seconds = utc - zoneOffset;
  if (!(seconds >= EARLIEST && seconds < LATEST)) return undefined;
  return {
    seconds,
    format: {
      kind: 'iso',
      layout: { dateOnly: sep === undefined, separator: (sep as 'T' | ' ') ?? 'T', seconds: s !== undefined, fraction: frac?.length ?? 0, zone: zone ?? '', zoneOffset },
    },
  };
}

/** The Unix seconds a bucket's time value denotes (cheap: no format is worked out). */
export function timeOf(value: JsonValue | undefined): number {
  if (typeof value === 'number') return value >= LATEST ? value / 1000 : value;
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
      if (layout.dateOnly) return wall.slice(0, 10) + layout.zone;
      let text = `${wall.slice(0, 10)}${layout.separator}${wall.slice(11, layout.seconds ? 19 : 16)}`;
      if (layout.fraction > 0) text += `.${'0'.repeat(layout.fraction)}`;
      return text + layout.zone;
    }
  }
}

/** A short, printable excerpt of a value for an error message. */
export function describeValue(value: JsonValue | undefined): string {
  if (value === undefined) return 'nothing';
  const text = isJsonNumber(value) ? numberText(value) : JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

type ValueKind = 'number' | 'decimal-string' | 'absent' | 'other';

function kindOf(value: JsonValue | undefined): ValueKind {
  if (value === undefined || value === null) return 'absent';
  if (isJsonNumber(value)) return 'number';
  if (isDecimalString(value)) return 'decimal-string';
  return 'other';
}

/**
 * Finds the time field and the metrics of a set of buckets (of one response, or of every part
 * of a long window together); undefined when there are none. Throws MalformedUsage when the
 * buckets share no readable time field or a metric holds something that is not a number.
 */
export function discoverShape(buckets: JsonObject[]): BucketShape | undefined {
  const first = buckets[0];
  if (!first) return undefined;
  // Time fields: those whose value reads as a time in every bucket.
  const timeNames = Object.keys(first).filter((name) => buckets.every((b) => readTime(b[name]) !== undefined));
  if (timeNames.length === 0) {
    const candidates = Object.keys(first).filter((name) => readTime(first[name]) !== undefined);
    throw new MalformedUsage(
      candidates.length > 0
        ? `usage buckets do not all carry the time field "${candidates[0]}" (a bucket has ${describeValue(buckets.find((b) => readTime(b[candidates[0]!]) === undefined)?.[candidates[0]!])} there)`
        : `usage buckets carry no time field tally can read (Unix seconds or milliseconds, or ISO 8601), e.g. ${describeValue(first)}`,
    );
  }
  // The bucket start is the earliest of them (a bucket end, if any, is later); whole minutes first.
  const onMinutes = timeNames.filter((name) => buckets.every((b) => readTime(b[name])!.seconds % 60 === 0));
  const pool = onMinutes.length > 0 ? onMinutes : timeNames;
  const timeField = pool.reduce((a, b) => (readTime(first[b])!.seconds < readTime(first[a])!.seconds ? b : a));
  const start = readTime(first[timeField])!;
  const otherTimeFields = timeNames
    .filter((name) => name !== timeField)
    .map((name) => {
      const other = readTime(first[name])!;
      return { name, format: other.format, delta: other.seconds - start.seconds };
    });
  const metrics = new Map<string, MetricField>();
  const order: string[] = [];
  const seen = new Set<string>();
  const times = new Set(timeNames);
  for (const bucket of buckets) {
    for (const name of Object.keys(bucket)) {
      if (!seen.has(name)) {
        seen.add(name);
        order.push(name);
      }
      if (times.has(name)) continue;
      const value = bucket[name];
      const kind = kindOf(value);
      if (kind === 'absent' || kind === 'other') continue;
      let scale = 0;
      // A whole JS number (the exact parse gives those only below 1e21) has no decimals to count.
      if (!(typeof value === 'number' && Number.isSafeInteger(value))) {
        const text = plainDecimal(kind === 'number' ? numberText(value as LosslessNumber | number) : (value as string));
        if (text === undefined) throw new MalformedUsage(`usage bucket field "${name}" holds ${describeValue(value)}, beyond the range tally reads`);
        const dot = text.indexOf('.');
        scale = dot < 0 ? 0 : text.length - dot - 1;
      }
      const known = metrics.get(name);
      if (!known) metrics.set(name, { name, type: kind, scale });
      else if (known.type !== kind) throw new MalformedUsage(`usage bucket field "${name}" is a ${describeKind(known.type)} in one bucket and a ${describeKind(kind)} in another`);
      else if (scale > known.scale) known.scale = scale;
    }
  }
  // A metric is numeric wherever it is present: text in its place is a malformed value.
  for (const bucket of buckets) {
    for (const name of metrics.keys()) {
      if (kindOf(bucket[name]) === 'other') {
        throw new MalformedUsage(`usage bucket at ${describeValue(bucket[timeField])}: "${name}" is not a number or decimal amount (got ${describeValue(bucket[name])})`);
      }
    }
  }
  const list = [...metrics.values()];
  return {
    timeField,
    timeFormat: start.format,
    otherTimeFields,
    metrics: list,
    moneyMetric: moneyFieldOf(list.filter((m) => m.type === 'decimal-string').map((m) => m.name)),
    fieldOrder: order,
  };
}

function describeKind(kind: ValueKind): string {
  return kind === 'decimal-string' ? 'decimal string' : kind === 'number' ? 'JSON number' : 'text';
}

/** Throws MalformedUsage unless every total of a bucket metric has that metric's type (or is absent). */
export function checkTotals(totals: JsonObject, shape: BucketShape | undefined): void {
  for (const name of Object.keys(totals)) {
    const value = totals[name];
    const kind = kindOf(value);
    if (kind === 'absent') continue;
    const metric = shape?.metrics.find((m) => m.name === name);
    if (kind === 'other') {
      if (metric) throw new MalformedUsage(`usage totals."${name}" is not a number or decimal amount (got ${describeValue(value)})`);
      continue;
    }
    if (plainDecimal(isJsonNumber(value) ? numberText(value) : (value as string)) === undefined) {
      throw new MalformedUsage(`usage totals."${name}" holds ${describeValue(value)}, beyond the range tally reads`);
    }
    if (metric && metric.type !== kind) throw new MalformedUsage(`usage totals."${name}" is a ${describeKind(kind)}, but a ${describeKind(metric.type)} in the buckets`);
  }
}

/**
 * The offset of the grid the buckets sit on: the most common remainder of their start times
 * (a grid that follows daylight saving has two). Undefined when no bucket says.
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

/**
 * An offset in seconds east of UTC, folded into (-12h, +12h] for days: bucket times alone cannot
 * tell a grid of -11:00 from one of +13:00 (the same instants, labelled a day apart), so
 * inference keeps to the nearer reading and --utc-offset settles the rest.
 */
function normaliseOffset(value: number, size: number): number {
  let offset = ((value % size) + size) % size;
  if (size === 86_400 && offset > 12 * 3600) offset -= 86_400;
  return offset;
}

type FieldFiller = { name: string; time: 'start' | { format: TimeFormat; delta: number } } | { name: string; zero: JsonValue };

/** Builds zero buckets for a shape: same fields in the same order, zeros of the same type. */
export function zeroBucketMaker(shape: BucketShape): (seconds: number, timeFormat: TimeFormat) => JsonObject {
  const fields = shape.fieldOrder.map((name): FieldFiller => {
    if (name === shape.timeField) return { name, time: 'start' };
    const other = shape.otherTimeFields.find((f) => f.name === name);
    if (other) return { name, time: { format: other.format, delta: other.delta } };
    const metric = shape.metrics.find((m) => m.name === name);
    return { name, zero: metric ? zeroOf(metric) : null };
  });
  // A record without a prototype is kept by V8 as a dictionary, slower to fill, read and print;
  // it is needed only when a field is called `__proto__` (on a plain object, assigning that
  // would replace the prototype). Every field of the shape is an own property either way.
  const plain = !shape.fieldOrder.includes('__proto__');
  return (seconds, timeFormat) => {
    const bucket = plain ? ({} as JsonObject) : newRecord();
    for (const field of fields) {
      bucket[field.name] = 'zero' in field ? field.zero : field.time === 'start' ? writeTime(seconds, timeFormat) : writeTime(seconds + field.time.delta, field.time.format);
    }
    return bucket;
  };
}

export function zeroOf(metric: MetricField): JsonValue {
  const text = metric.scale > 0 ? `0.${'0'.repeat(metric.scale)}` : '0';
  if (metric.type === 'decimal-string') return text;
  // A plain 0 prints as 0; a zero with decimals ("0.00") keeps them through LosslessNumber.
  return metric.scale > 0 ? new LosslessNumber(text) : 0;
}

/** A grid of buckets: `size` seconds long, starting `offset` seconds after UTC midnight. */
export interface BucketGrid {
  size: number;
  /** Seconds east of UTC (a day grid that starts at 16:00 UTC has offset +28800). */
  offset: number;
}

export interface FilledSeries {
  /** In time order: the service's buckets exactly as sent, zero buckets where it sent none. */
  buckets: JsonObject[];
  /** The grid point each bucket stands for (its label), parallel to `buckets`. */
  slots: number[];
  filled: number;
}

/**
 * Every bucket of [start, end) on the grid. Each bucket the service sent stands for the grid
 * point nearest its time (a day grid that follows daylight saving is an hour off the grid half
 * the year); grid points without one get a zero bucket, its time written like its nearest earlier
 * neighbour's (same layout and zone, same distance from the grid). Buckets outside the window
 * are kept too.
 */
/**
 * The buckets with each time once: a bucket sent twice exactly as it was (parts of a split window
 * that overlap) is one bucket; two different buckets for one time cannot both be the figures of
 * that time, and are refused, never added up twice.
 */
export function distinctBuckets(buckets: JsonObject[], shape: BucketShape | undefined): JsonObject[] {
  if (!shape) return buckets;
  const seen = new Map<number, string>();
  const out: JsonObject[] = [];
  for (const bucket of buckets) {
    const t = readTime(bucket[shape.timeField])?.seconds;
    if (t === undefined) {
      out.push(bucket);
      continue;
    }
    const text = JSON.stringify(bucket);
    const before = seen.get(t);
    if (before === undefined) {
      seen.set(t, text);
      out.push(bucket);
    } else if (before !== text) {
      throw new MalformedUsage(`two different usage buckets for ${new Date(t * 1000).toISOString()} (${JSON.stringify(bucket[shape.timeField])}); tally cannot tell which holds the figures, and never adds both`);
    }
  }
  return out;
}

export function fillMissingBuckets(buckets: JsonObject[], shape: BucketShape | undefined, window: UsageWindow, grid: BucketGrid): FilledSeries {
  if (!shape) return { buckets, slots: buckets.map(() => window.start), filled: 0 };
  const slotOf = (t: number) => Math.round((t - window.start) / grid.size) * grid.size + window.start;
  const timed = buckets.map((bucket, index) => {
    const t = readTime(bucket[shape.timeField])!;
    return { bucket, t: t.seconds, slot: slotOf(t.seconds), format: t.format, index };
  });
  timed.sort((a, b) => a.t - b.t || a.index - b.index);
  const makeZero = zeroBucketMaker(shape);
  const result: JsonObject[] = [];
  const slots: number[] = [];
  let filled = 0;
  let next = 0;
  // The nearest earlier real bucket: how far off the grid it sits and how it writes its time.
  let model = timed[0] ? { deviation: timed[0].t - timed[0].slot, format: timed[0].format } : { deviation: 0, format: shape.timeFormat };
  for (let t = window.start; t < window.end; t += grid.size) {
    let present = false;
    while (next < timed.length && timed[next]!.slot <= t) {
      const real = timed[next++]!;
      if (real.slot === t) present = true;
      result.push(real.bucket);
      slots.push(real.slot);
      model = { deviation: real.t - real.slot, format: real.format };
    }
    if (!present) {
      result.push(makeZero(t + model.deviation, model.format));
      slots.push(t);
      filled++;
    }
  }
  while (next < timed.length) {
    const real = timed[next++]!;
    result.push(real.bucket);
    slots.push(real.slot);
  }
  return { buckets: result, slots, filled };
}
