import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UsageError } from '../../src/errors.js';
import { alignDown, parseTimeSpec, requestWindow, splitWindow } from '../../src/domain/time.js';

const NOW = Date.UTC(2026, 10, 21, 23, 18, 55) / 1000; // Sat 2026-11-21 23:18:55 UTC
const utc = () => 0;
const plus8 = () => 8 * 3600;

describe('parseTimeSpec', () => {
  it.each([
    ['now', NOW],
    ['90m', NOW - 90 * 60],
    ['36h', NOW - 36 * 3600],
    ['7d', NOW - 7 * 86400],
    ['2w', NOW - 14 * 86400],
    ['1790000000', 1790000000],
    ['2026-11-01', Date.UTC(2026, 10, 1) / 1000],
    ['2026-11-01T08:30', Date.UTC(2026, 10, 1, 8, 30) / 1000],
    ['2026-11-01T08:30:15Z', Date.UTC(2026, 10, 1, 8, 30, 15) / 1000],
    ['2026-11-01T08:00:00+08:00', Date.UTC(2026, 10, 1, 0, 0) / 1000],
    ['2026-11-01 08:00:00-05:30', Date.UTC(2026, 10, 1, 13, 30) / 1000],
  ])('reads %s', (text, expected) => {
    expect(parseTimeSpec(text, NOW, utc)).toBe(expected);
  });

  it('reads a date without an offset in the given local offset', () => {
    expect(parseTimeSpec('2026-11-01', NOW, plus8)).toBe(Date.UTC(2026, 9, 31, 16) / 1000);
  });

  it.each(['yesterday', '2026-02-30', '2026-13-01', '12345', '7x', '2026-11-01T25:00', '', '--1d'])('refuses %j with a usage error naming it', (text) => {
    expect(() => parseTimeSpec(text, NOW, utc, '--since')).toThrow(UsageError);
    expect(() => parseTimeSpec(text, NOW, utc, '--since')).toThrow(`--since "${text}"`);
  });

  it('never throws anything but a UsageError (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          const t = parseTimeSpec(text, NOW, utc);
          return Number.isFinite(t);
        } catch (error) {
          return error instanceof UsageError;
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('requestWindow', () => {
  const day = { size: 86400, offset: 0 };
  const hour = { size: 3600, offset: 0 };

  it('defaults to the last 7 days ending at the end of the current day', () => {
    const w = requestWindow({ bucket: 'day', now: NOW, localOffset: utc, grid: day });
    expect(w).toEqual({ start: Date.UTC(2026, 10, 15) / 1000, end: Date.UTC(2026, 10, 22) / 1000 });
  });

  it('defaults to the last 24 hours ending at the end of the current hour', () => {
    const w = requestWindow({ bucket: 'hour', now: NOW, localOffset: utc, grid: hour });
    expect(w).toEqual({ start: Date.UTC(2026, 10, 21, 0) / 1000, end: Date.UTC(2026, 10, 22, 0) / 1000 });
  });

  it('aligns both ends down to the grid, half-open, across a month boundary', () => {
    const w = requestWindow({ bucket: 'day', since: '2026-10-30T13:00:00Z', until: '2026-11-02T01:00:00Z', now: NOW, localOffset: utc, grid: day });
    expect(w).toEqual({ start: Date.UTC(2026, 9, 30) / 1000, end: Date.UTC(2026, 10, 2) / 1000 });
    expect((w.end - w.start) / 86400).toBe(3);
  });

  it('aligns to a UTC+8 day grid (days start at 16:00 UTC)', () => {
    const grid = { size: 86400, offset: 8 * 3600 };
    expect(alignDown(Date.UTC(2026, 10, 21, 10) / 1000, grid)).toBe(Date.UTC(2026, 10, 20, 16) / 1000);
    expect(alignDown(Date.UTC(2026, 10, 21, 17) / 1000, grid)).toBe(Date.UTC(2026, 10, 21, 16) / 1000);
  });

  it('splits a 120-day window into 92 + 28 days without gap or overlap', () => {
    const w = requestWindow({ bucket: 'day', since: '2026-07-01', until: '2026-10-29', now: NOW, localOffset: utc, grid: day });
    expect((w.end - w.start) / 86400).toBe(120);
    const parts = splitWindow(w);
    expect(parts.map((p) => (p.end - p.start) / 86400)).toEqual([92, 28]);
    expect(parts[0]!.start).toBe(w.start);
    expect(parts[0]!.end).toBe(parts[1]!.start);
    expect(parts[1]!.end).toBe(w.end);
  });

  it.each([
    [{ since: '2026-11-10', until: '2026-11-01' }, '--since (2026-11-10) must be before --until (2026-11-01)'],
    [{ since: 'now', until: 'now' }, '--since (now) must be before --until (now)'],
    [{ since: '2026-11-01T10:15:00Z', until: '2026-11-01T10:45:00Z' }, 'holds no whole hour once aligned'],
  ])('refuses an empty or inverted window %j', (range, message) => {
    expect(() => requestWindow({ bucket: 'hour', ...range, now: NOW, localOffset: utc, grid: hour })).toThrow(message);
  });
});
