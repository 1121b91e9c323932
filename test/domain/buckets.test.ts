import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MalformedUsage, checkTotals, discoverShape, fillMissingBuckets, inferGridOffset, readTime } from '../../src/domain/buckets.js';
import { mergeTotals } from '../../src/domain/totals.js';
import { rollUp } from '../../src/domain/rollup.js';
import { bucketStart, bucketStarts, nextBucketStart } from '../../src/domain/window.js';
import { type JsonObject, parseJson, stringifyJson } from '../../src/domain/json.js';

const H = 3600;
const D = 86400;
const T0 = Date.UTC(2026, 10, 15) / 1000;

function buckets(json: string): JsonObject[] {
  return parseJson(json) as JsonObject[];
}

describe('discoverShape', () => {
  it('finds start/calls/cost (Unix seconds)', () => {
    const shape = discoverShape(buckets(`[{"start": ${T0}, "calls": 3, "cost": "1.50000000"}]`))!;
    expect(shape.timeField).toBe('start');
    expect(shape.timeFormat).toEqual({ kind: 'unix-seconds', asString: false });
    expect(shape.metrics.map((m) => [m.name, m.type])).toEqual([['calls', 'number'], ['cost', 'decimal-string']]);
    expect(shape.moneyMetric).toBe('cost');
  });

  it('finds ts/requests/prompt_tokens/completion_tokens/spend (Unix milliseconds)', () => {
    const shape = discoverShape(buckets(`[{"ts": ${T0 * 1000}, "requests": 2, "prompt_tokens": 1200, "completion_tokens": 300, "spend": "0.01"}]`))!;
    expect(shape.timeField).toBe('ts');
    expect(shape.timeFormat.kind).toBe('unix-millis');
    expect(shape.metrics.map((m) => m.name)).toEqual(['requests', 'prompt_tokens', 'completion_tokens', 'spend']);
    expect(shape.moneyMetric).toBe('spend');
  });

  it('finds an ISO time and keeps a bucket end out of the metrics', () => {
    const shape = discoverShape(buckets('[{"time": "2026-11-15T00:00:00+08:00", "until": "2026-11-16T00:00:00+08:00", "n": 1, "yuan": "2.00"}]'))!;
    expect(shape.timeField).toBe('time');
    expect(shape.otherTimeFields).toEqual([{ name: 'until', format: expect.objectContaining({ kind: 'iso' }), delta: D }]);
    expect(shape.metrics.map((m) => m.name)).toEqual(['n', 'yuan']);
  });

  it('returns undefined for no buckets', () => {
    expect(discoverShape([])).toBeUndefined();
  });
});

describe('inferGridOffset', () => {
  it.each([
    ['UTC', T0, 0],
    ['UTC+8 (days start 16:00 UTC)', T0 - 8 * H, 8 * H],
    ['UTC-5', T0 + 5 * H, -5 * H],
  ])('infers %s', (_name, start, offset) => {
    const list = buckets(`[{"start": ${start}, "cost": "1"}, {"start": ${start + 2 * D}, "cost": "1"}]`);
    expect(inferGridOffset(list, discoverShape(list)!, D)).toBe(offset);
  });
});

describe('fillMissingBuckets', () => {
  it('fills gaps with zeros of the same type and leaves real buckets untouched', () => {
    const list = buckets(`[{"start": ${T0 + D}, "calls": 3, "cost": "1.50000000"}, {"start": ${T0 + 3 * D}, "calls": 1, "cost": "0.25000000"}]`);
    const before = stringifyJson(list);
    const shape = discoverShape(list)!;
    const { buckets: filled, slots } = fillMissingBuckets(list, shape, { start: T0, end: T0 + 5 * D }, { size: D, offset: 0 });
    expect(slots).toEqual([0, 1, 2, 3, 4].map((i) => T0 + i * D));
    expect(stringifyJson(filled)).toBe(
      `[{"start":${T0},"calls":0,"cost":"0.00000000"},{"start":${T0 + D},"calls":3,"cost":"1.50000000"},{"start":${T0 + 2 * D},"calls":0,"cost":"0.00000000"},{"start":${T0 + 3 * D},"calls":1,"cost":"0.25000000"},{"start":${T0 + 4 * D},"calls":0,"cost":"0.00000000"}]`,
    );
    expect(filled[1]).toBe(list[0]);
    expect(filled[3]).toBe(list[1]);
    expect(stringifyJson(list)).toBe(before);
  });

  it('fills a UTC+8 day grid at 16:00 UTC, writing ISO times the way the service does', () => {
    const list = buckets('[{"time": "2026-11-15T00:00:00+08:00", "request_count": 5, "cost_yuan": "3.10"}, {"time": "2026-11-17T00:00:00+08:00", "request_count": 2, "cost_yuan": "1.00"}]');
    const shape = discoverShape(list)!;
    const offset = inferGridOffset(list, shape, D)!;
    expect(offset).toBe(8 * H);
    const start = Date.UTC(2026, 10, 14, 16) / 1000;
    const { buckets: filled } = fillMissingBuckets(list, shape, { start, end: start + 4 * D }, { size: D, offset });
    expect(filled.map((b) => b.time)).toEqual(['2026-11-15T00:00:00+08:00', '2026-11-16T00:00:00+08:00', '2026-11-17T00:00:00+08:00', '2026-11-18T00:00:00+08:00']);
    expect(stringifyJson(filled[1])).toBe('{"time":"2026-11-16T00:00:00+08:00","request_count":0,"cost_yuan":"0.00"}');
  });

  it('writes Unix milliseconds as milliseconds and keeps buckets outside the window', () => {
    const list = buckets(`[{"ts": ${(T0 - D) * 1000}, "spend": "9"}, {"ts": ${(T0 + H) * 1000}, "spend": "1"}]`);
    const shape = discoverShape(list)!;
    const { buckets: filled } = fillMissingBuckets(list, shape, { start: T0, end: T0 + 3 * H }, { size: H, offset: 0 });
    expect(filled.map((b) => stringifyJson(b))).toEqual([
      `{"ts":${(T0 - D) * 1000},"spend":"9"}`,
      `{"ts":${T0 * 1000},"spend":"0"}`,
      `{"ts":${(T0 + H) * 1000},"spend":"1"}`,
      `{"ts":${(T0 + 2 * H) * 1000},"spend":"0"}`,
    ]);
  });

  it('always yields every grid point of the window, in order, keeping every real bucket (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: -5, max: 60 }), { maxLength: 40 }), fc.integer({ min: 1, max: 48 }), (hours, length) => {
        const list = buckets(JSON.stringify(hours.map((h) => ({ start: T0 + h * H, calls: h + 1, cost: `${h + 1}.5` }))));
        const shape = discoverShape(list);
        const { buckets: filled } = fillMissingBuckets(list, shape, { start: T0, end: T0 + length * H }, { size: H, offset: 0 });
        const times = filled.map((b) => readTime(b.start)!.seconds);
        const sorted = [...times].sort((a, b) => a - b);
        const inWindow = times.filter((t) => t >= T0 && t < T0 + length * H);
        return (
          times.join() === sorted.join() &&
          list.every((b) => filled.includes(b)) &&
          (shape === undefined || inWindow.length === length)
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe('mergeTotals', () => {
  it('adds additive metrics exactly, keeps max, nulls averages', () => {
    const parts = buckets('[{"calls": 10, "cost": "12345678901.23456789", "avg_latency_ms": 300, "max_tokens": 9000}, {"calls": 5, "cost": "0.00000001", "avg_latency_ms": 500, "max_tokens": 12000}]');
    expect(stringifyJson(mergeTotals(parts))).toBe('{"calls":15,"cost":"12345678901.23456790","avg_latency_ms":null,"max_tokens":12000}');
  });

  it('keeps 20 significant digits of a JSON number', () => {
    const parts = buckets('[{"spend": 123456789012.34567891}, {"spend": 0.00000009}]');
    expect(stringifyJson(mergeTotals(parts))).toBe('{"spend":123456789012.34567900}');
  });
});

describe('hostile bucket shapes', () => {
  it('fills a day grid that follows daylight saving without duplicate dates, writing each filled day like its neighbour', () => {
    // America/New_York days: midnight is 04:00 UTC before 2026-11-01 and 05:00 UTC after.
    const list = buckets('[{"day": "2026-10-30T00:00:00-04:00", "cost": "1.00"}, {"day": "2026-10-31T00:00:00-04:00", "cost": "2.00"}, {"day": "2026-11-02T00:00:00-05:00", "cost": "3.00"}, {"day": "2026-11-04T00:00:00-05:00", "cost": "4.00"}]');
    const shape = discoverShape(list)!;
    const offset = inferGridOffset(list, shape, D)!;
    expect([-4 * H, -5 * H]).toContain(offset);
    const start = Date.UTC(2026, 9, 30) / 1000 - offset;
    const { buckets: filled, slots } = fillMissingBuckets(list, shape, { start, end: start + 6 * D }, { size: D, offset });
    expect(filled.map((b) => b.day)).toEqual([
      '2026-10-30T00:00:00-04:00',
      '2026-10-31T00:00:00-04:00',
      '2026-11-01T00:00:00-04:00',
      '2026-11-02T00:00:00-05:00',
      '2026-11-03T00:00:00-05:00',
      '2026-11-04T00:00:00-05:00',
    ]);
    const dates = slots.map((t) => new Date((t + offset) * 1000).toISOString().slice(0, 10));
    expect(new Set(dates).size).toBe(6);
  });

  it('reads a date written with a zone (2026-11-02+08:00) and writes filled ones the same way', () => {
    const list = buckets('[{"d": "2026-11-02+08:00", "n": 1, "cost": "1.5"}]');
    const shape = discoverShape(list)!;
    expect(readTime('2026-11-02+08:00')!.seconds).toBe(Date.UTC(2026, 10, 1, 16) / 1000);
    const start = Date.UTC(2026, 10, 1, 16) / 1000;
    const { buckets: filled } = fillMissingBuckets(list, shape, { start, end: start + 3 * D }, { size: D, offset: 8 * H });
    expect(filled.map((b) => b.d)).toEqual(['2026-11-02+08:00', '2026-11-03+08:00', '2026-11-04+08:00']);
  });

  it('places buckets off the grid (or with float fields) at the nearest grid point, never beside it', () => {
    const list = buckets(`[{"t": ${T0 + 3 * H + 17 * 60}, "cost": "1", "weight": 1.5}]`);
    const shape = discoverShape(list)!;
    const { buckets: filled, slots } = fillMissingBuckets(list, shape, { start: T0, end: T0 + 5 * H }, { size: H, offset: 0 });
    expect(slots).toEqual([0, 1, 2, 3, 4].map((i) => T0 + i * H));
    expect(filled[3]).toBe(list[0]);
    expect(filled).toHaveLength(5);
  });

  it.each([
    ['no time field at all', '[{"n": 1, "cost": "1"}]', 'usage buckets carry no time field tally can read'],
    ['a float time', `[{"t": ${T0}.5, "cost": "1"}]`, 'usage buckets carry no time field'],
    ['time fields that differ between buckets', `[{"start": ${T0}, "cost": "1"}, {"ts": ${(T0 + D) * 1000}, "cost": "2"}]`, 'usage buckets do not all carry the time field "start"'],
    ['a metric that is text in one bucket', `[{"start": ${T0}, "cost": "1"}, {"start": ${T0 + D}, "cost": "\\u001b[31mlots"}]`, '"cost" is not a number or decimal amount'],
    ['a metric that changes type', `[{"start": ${T0}, "cost": "1"}, {"start": ${T0 + D}, "cost": 2}]`, 'is a decimal string in one bucket and a JSON number in another'],
    ['a number beyond range', `[{"start": ${T0}, "calls": 1e400}]`, 'holds 1e400, beyond the range tally reads'],
  ])('says what is wrong with %s (MalformedUsage, never a crash)', (_name, json, message) => {
    expect(() => discoverShape(buckets(json))).toThrow(MalformedUsage);
    expect(() => discoverShape(buckets(json))).toThrow(message);
  });

  it('checks totals against the buckets: text where an amount belongs is malformed', () => {
    const shape = discoverShape(buckets(`[{"start": ${T0}, "calls": 1, "cost": "1.00"}]`))!;
    expect(() => checkTotals(parseJson('{"calls": 1, "cost": "\\u001b[2Jgone"}') as JsonObject, shape)).toThrow('usage totals."cost" is not a number or decimal amount');
    expect(() => checkTotals(parseJson('{"calls": 1e400, "cost": "1"}') as JsonObject, shape)).toThrow('beyond the range');
    expect(() => checkTotals(parseJson('{"calls": 1, "cost": "1", "note": "fine"}') as JsonObject, shape)).not.toThrow();
  });

  it('keeps a field named __proto__ as a field, in filled buckets and totals', () => {
    const list = buckets(`[{"start": ${T0}, "__proto__": 3, "cost": "1"}]`);
    const shape = discoverShape(list)!;
    expect(shape.metrics.map((m) => m.name)).toEqual(['__proto__', 'cost']);
    const { buckets: filled } = fillMissingBuckets(list, shape, { start: T0, end: T0 + 2 * D }, { size: D, offset: 0 });
    expect(stringifyJson(filled[1])).toBe(`{"start":${T0 + D},"__proto__":0,"cost":"0"}`);
    expect(stringifyJson(mergeTotals([list[0]!, filled[1]!]))).toBe(`{"start":${2 * T0 + D},"__proto__":3,"cost":"1"}`);
  });
});

describe('rollUp (weeks and months from days)', () => {
  it('adds the days of each period exactly, keeping the service field names and time layout', () => {
    const list = buckets(`[{"start": ${T0}, "calls": 2, "cost": "1.10"}, {"start": ${T0 + 3 * D}, "calls": 5, "cost": "0.05"}, {"start": ${T0 + 9 * D}, "calls": 1, "cost": "3"}]`);
    const shape = discoverShape(list)!;
    const days = fillMissingBuckets(list, shape, { start: T0, end: T0 + 14 * D }, { size: D, offset: 0 });
    const real = new Set(days.buckets.flatMap((b, i) => (list.includes(b) ? [i] : [])));
    // T0 is Sunday 2026-11-15: weeks start on the Mondays around it.
    const periods = [{ start: T0 - 6 * D, end: T0 + D }, { start: T0 + D, end: T0 + 8 * D }, { start: T0 + 8 * D, end: T0 + 15 * D }];
    const rolled = rollUp(days, real, shape, periods);
    expect(rolled.buckets.map((b) => stringifyJson(b))).toEqual([
      `{"start":${T0 - 6 * D},"calls":2,"cost":"1.10"}`,
      `{"start":${T0 + D},"calls":5,"cost":"0.05"}`,
      `{"start":${T0 + 8 * D},"calls":1,"cost":"3.00"}`,
    ]);
    expect(rolled.empty).toBe(0);
  });

  it('gives weekly and monthly totals equal to the daily totals of the same window (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ day: fc.integer({ min: 0, max: 120 }), calls: fc.integer({ min: 0, max: 10_000 }), cents: fc.bigInt({ min: 0n, max: 10n ** 14n }) }), { maxLength: 60 }),
        fc.constantFrom<'week' | 'month'>('week', 'month'),
        fc.integer({ min: -12, max: 14 }),
        (entries, bucket, hours) => {
          const offset = hours * H;
          const first = bucketStart(Date.UTC(2026, 0, 5) / 1000 - offset, bucket, offset);
          const unique = [...new Map(entries.map((e) => [e.day, e])).values()];
          const list = unique.map((e) => ({ start: first + e.day * D, calls: e.calls, cost: `${e.cents / 10n ** 8n}.${String(e.cents % 10n ** 8n).padStart(8, '0')}` }));
          const end = nextBucketStart(first + 130 * D, bucket, offset);
          const parsed = buckets(JSON.stringify(list));
          const shape = discoverShape(parsed);
          if (!shape) return true;
          const days = fillMissingBuckets(parsed, shape, { start: first, end }, { size: D, offset });
          const real = new Set(days.buckets.flatMap((b, i) => (parsed.includes(b) ? [i] : [])));
          const periods = bucketStarts({ start: first, end }, bucket, offset).map((start) => ({ start, end: nextBucketStart(start, bucket, offset) }));
          const rolled = rollUp(days, real, shape, periods);
          const daily = mergeTotals(days.buckets.map(({ calls, cost }) => ({ calls: calls!, cost: cost! })));
          const periodic = mergeTotals(rolled.buckets.map(({ calls, cost }) => ({ calls: calls!, cost: cost! })));
          return stringifyJson(daily) === stringifyJson(periodic) && rolled.buckets.length === periods.length;
        },
      ),
      { numRuns: 200 },
    );
  });
});
