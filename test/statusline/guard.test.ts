// The guard's rule: a limit is crossed exactly when its figure (no older than the usable age)
// says so; a missing, too old or unmeasured figure is unread, never passed or crossed. The cache
// reads back what it wrote for its identity and nothing else.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { type StoredBudget, budgetMeasure } from '../../src/domain/budget.js';
import { type BudgetFigure, type DailyFigure, USABLE_FOR_SECONDS, decide, fresher, guardPath, readGuardCache, staleParts, writeGuardCache } from '../../src/statusline/guard.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30);
const iso = (ms: number) => new Date(ms).toISOString();
const cents = fc.integer({ min: 0, max: 10_000_000 }).map((n) => (n / 100).toFixed(2));

function daily(used: string, limit: string | null, ageSeconds = 0): DailyFigure {
  return { used, limit, currency: 'CNY', fetched_at: iso(NOW - ageSeconds * 1000) };
}

function budget(name: string, spent: string | null, amount: string, state: string): BudgetFigure {
  return { name, amount, currency: 'CNY', period: 'month', scope: 'key', spent, percent: null, state, end_iso: '2026-12-01T00:00:00+00:00', fetched_at: iso(NOW), ...(spent === null ? { not_measured: 'the gateway does not say whose' } : {}) };
}

describe('the guard rule', () => {
  it('an amount of the day is crossed exactly when the spend is more than it', () => {
    fc.assert(
      fc.property(cents, cents, (used, max) => {
        const d = decide({ maxDaily: { kind: 'amount', value: new Decimal(max) }, budgets: [] }, { daily: daily(used, '100'), budgets: new Map() }, NOW, false);
        expect(d.unread).toEqual([]);
        expect(d.crossed.length === 1).toBe(new Decimal(used).gt(max));
      }),
    );
  });

  it('a share of the day is crossed exactly when used / limit is more than it, computed in decimal (no float rounding at the edge)', () => {
    fc.assert(
      fc.property(cents, fc.integer({ min: 1, max: 10_000_000 }).map((n) => (n / 100).toFixed(2)), fc.integer({ min: 0, max: 200 }), (used, limit, percent) => {
        const d = decide({ maxDaily: { kind: 'percent', value: new Decimal(percent) }, budgets: [] }, { daily: daily(used, limit), budgets: new Map() }, NOW, false);
        expect(d.crossed.length === 1).toBe(new Decimal(used).div(limit).mul(100).gt(percent));
      }),
    );
    // 0.3 of 1.0 is exactly 30%: not past 30%.
    expect(decide({ maxDaily: { kind: 'percent', value: new Decimal(30) }, budgets: [] }, { daily: daily('0.3', '1.0'), budgets: new Map() }, NOW, false).crossed).toEqual([]);
  });

  it('a figure older than the usable age, a device token, a key without a limit, no session, a budget not measured: unread, never crossed', () => {
    const limits = { maxDaily: { kind: 'percent' as const, value: new Decimal(1) }, maxSession: new Decimal(1), budgets: ['b', 'gone'] };
    const old = decide(limits, { daily: daily('99', '100', USABLE_FOR_SECONDS + 1), budgets: new Map([['b', budget('b', null, '1', 'not measured')]]) }, NOW, false);
    expect(old.crossed).toEqual([]);
    expect(old.unread).toEqual([
      "--max-daily-used: the key's spend today could not be read",
      "--max-session-spend: the hook's input names no session",
      'budget "b": not measured (the gateway does not say whose)',
      'budget "gone": its spend could not be read',
    ]);
    expect(decide(limits, { daily: null, budgets: new Map() }, NOW, true).unread[0]).toMatch(/device token/);
    expect(decide(limits, { daily: daily('99', null), budgets: new Map() }, NOW, true).unread[0]).toMatch(/no daily limit/);
    expect(decide(limits, { daily: daily('99', '100', USABLE_FOR_SECONDS - 1), budgets: new Map() }, NOW, true).crossed).toHaveLength(1);
  });

  it('a budget kept as spent is decided against the amount stored now: raised, it goes on; lowered, it blocks', () => {
    const stored: StoredBudget = { amount: '10', period: 'month', starts: 1, zone: 'UTC', scope: 'key' };
    const kept = { ...budget('m', '9', '10', 'ahead of pace'), measure: budgetMeasure(stored) };
    const at = (amount: string) => decide({ budgets: ['m'], stored: new Map([['m', { ...stored, amount }]]) }, { budgets: new Map([['m', kept]]) }, NOW, false);
    expect(at('10').crossed).toEqual([]);
    expect(at('9').crossed).toMatchObject([{ kind: 'budget', figure: { amount: '9', spent: '9', percent: '100.0', state: 'over' } }]);
    expect(at('8.5').crossed).toMatchObject([{ figure: { percent: '105.9' } }]);
    expect(decide({ budgets: ['m'], stored: new Map([['m', { ...stored, amount: '100' }]]) }, { budgets: new Map([['m', { ...kept, spent: '50', state: 'over', amount: '20' }]]) }, NOW, false).crossed).toEqual([]);
    // A kept figure of another measure decides nothing: unread until it is measured again.
    expect(decide({ budgets: ['m'], stored: new Map([['m', { ...stored, zone: '+08:00' }]]) }, { budgets: new Map([['m', kept]]) }, NOW, false).unread).toEqual(['budget "m": its spend could not be read']);
  });

  it("a budget is crossed by its own state (spent to its amount is over); the session by more than the limit", () => {
    const figures = { budgets: new Map([['a', budget('a', '10', '10', 'over')], ['b', budget('b', '9.99', '10', 'ahead of pace')]]), session: { id: 's', started: 0, spent: '5.00', currency: 'CNY', complete: true, fetched_at: iso(NOW) } };
    const d = decide({ maxSession: new Decimal('5'), budgets: ['a', 'b'] }, figures, NOW, true);
    expect(d.crossed.map((c) => c.kind)).toEqual(['budget']);
    expect(decide({ maxSession: new Decimal('4.99'), budgets: [] }, figures, NOW, true).crossed.map((c) => c.kind)).toEqual(['session']);
  });

  it('asks again only for what is older than --max-age, and the fresher of two figures is used', () => {
    const monthly: StoredBudget = { amount: '2', period: 'month', starts: 1, zone: 'UTC', scope: 'key' };
    const limits = { maxDaily: { kind: 'amount' as const, value: new Decimal(1) }, maxSession: new Decimal(1), budgets: ['x', 'y'], stored: new Map([['x', monthly], ['y', monthly]]) };
    const figures = { daily: daily('1', '2', 30), budgets: new Map([['x', { ...budget('x', '1', '2', 'on track'), measure: budgetMeasure(monthly) }]]) };
    expect(staleParts(limits, figures, NOW, 60, true)).toEqual({ daily: false, session: true, budgets: ['y'] });
    expect(staleParts(limits, figures, NOW, 10, false)).toEqual({ daily: true, session: false, budgets: ['y'] });
    // Only the figures are kept: a budget that now measures another period (or a figure from before measures were kept) is asked again; a new amount is not.
    expect(staleParts({ ...limits, stored: new Map([['x', { ...monthly, period: 'week', starts: 'mon' }]]) }, figures, NOW, 60, true).budgets).toEqual(['x', 'y']);
    expect(staleParts({ ...limits, stored: new Map([['x', { ...monthly, amount: '500' }]]) }, figures, NOW, 60, true).budgets).toEqual(['y']);
    expect(staleParts(limits, { ...figures, budgets: new Map([['x', budget('x', '1', '2', 'on track')]]) }, NOW, 60, true).budgets).toEqual(['x', 'y']);
    // A period that has ended is asked again.
    expect(staleParts(limits, figures, Date.UTC(2026, 11, 1, 0, 0, 1), 3600 * 24 * 30, true).budgets).toEqual(['x', 'y']);
    expect(fresher(daily('1', '2', 30), daily('3', '2', 5))?.used).toBe('3');
    expect(fresher(null, undefined)).toBeNull();
  });
});

describe("the guard's cache", () => {
  it('reads back what it wrote for its identity, nothing for another key or a file tally did not write', () => {
    const dir = mkdtempSync(join(tmpdir(), 'guard-'));
    try {
      const who = { profile: 'default', baseUrl: new URL('https://gw.example.com'), secret: 'sk-one' };
      const written = { base_url: who.baseUrl.href, credential_id: '', daily: daily('1.50', '10'), budgets: [budget('m', '3', '10', 'on track')] };
      writeGuardCache(dir, who, { ...written, credential_id: readGuardCache(dir, who).credential_id });
      const read = readGuardCache(dir, who);
      expect(read.daily).toEqual(written.daily);
      expect(read.budgets).toEqual(written.budgets);
      expect(readGuardCache(dir, { ...who, secret: 'sk-two' }).budgets).toEqual([]);
      writeFileSync(guardPath(dir, who), JSON.stringify({ ...read, daily: { ...read.daily, used: 1.5 }, budgets: [{ name: 'm', amount: '1e3' }] }));
      expect(readGuardCache(dir, who)).toMatchObject({ budgets: [] });
      expect(readGuardCache(dir, who).daily).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
