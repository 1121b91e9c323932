import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { discoverShape, fillMissingBuckets, inferGridOffset, readTime } from '../../src/domain/buckets.js';
import { mergeTotals } from '../../src/domain/totals.js';
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
    const filled = fillMissingBuckets(list, shape, { start: T0, end: T0 + 5 * D }, { size: D, offset: 0 });
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
    const filled = fillMissingBuckets(list, shape, { start, end: start + 4 * D }, { size: D, offset });
    expect(filled.map((b) => b.time)).toEqual(['2026-11-15T00:00:00+08:00', '2026-11-16T00:00:00+08:00', '2026-11-17T00:00:00+08:00', '2026-11-18T00:00:00+08:00']);
    expect(stringifyJson(filled[1])).toBe('{"time":"2026-11-16T00:00:00+08:00","request_count":0,"cost_yuan":"0.00"}');
  });

  it('writes Unix milliseconds as milliseconds and keeps buckets outside the window', () => {
    const list = buckets(`[{"ts": ${(T0 - D) * 1000}, "spend": "9"}, {"ts": ${(T0 + H) * 1000}, "spend": "1"}]`);
    const shape = discoverShape(list)!;
    const filled = fillMissingBuckets(list, shape, { start: T0, end: T0 + 3 * H }, { size: H, offset: 0 });
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
        const filled = fillMissingBuckets(list, shape, { start: T0, end: T0 + length * H }, { size: H, offset: 0 });
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
