// The gates of tally check as rules from a figure and a threshold to a result, tested without a
// gateway: a condition that cannot apply is a warning that says why, a share compares exactly,
// and the words come from the view (a fake one here, so the rule is seen apart from the digits).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readBalance } from '../../src/api/balance.js';
import { Decimal } from '../../src/domain/money.js';
import { type GateWords, balanceGates, budgetGateName, dailyCheck, gatePeriod, keyQuotaCheck, modelGates, runSpendGates, runwayCheck } from '../../src/figures/check-gates.js';
import type { LoadedForecast } from '../../src/figures/forecast.js';

const words: GateWords = {
  amount: (v, c) => `${c ?? 'CNY'} ${v.toFixed()}`,
  stated: (v, c) => `${v.toFixed()} ${c ?? 'units'}`,
  window: (w) => `[${w.start}, ${w.end})`,
  finding: (f) => f.kind,
  findingWhen: (f) => String(f.start),
  budgetWhose: (b) => `${b.scope ?? 'account'}${b.models ? ` of ${b.models.join(',')}` : ''}`,
};

const balance = (key: Record<string, unknown> | null) => readBalance({ currency: 'CNY', balance: '100.00', lifetime_spend: '5.00', plan: { has_active_plan: false }, api_key: key });

describe('dailyCheck', () => {
  it('compares the exact share of the daily limit (property: pass exactly when used/limit*100 <= the limit)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_00 }), fc.integer({ min: 1, max: 10_000_00 }), fc.integer({ min: 0, max: 200 }), (usedFen, limitFen, percent) => {
        const used = new Decimal(usedFen).div(100);
        const limit = new Decimal(limitFen).div(100);
        const result = dailyCheck('max-daily-used', 'fail', balance({ name: 'k', daily_cost_limit: limit.toFixed(2), daily_cost_used: used.toFixed(2) }), { kind: 'percent', value: new Decimal(percent) }, words);
        expect(result.level).toBe(used.div(limit).mul(100).lte(percent) ? 'pass' : 'fail');
        expect(result.detail).toBe(`CNY ${used.toFixed()} of the CNY ${limit.toFixed()} daily limit spent today`);
      }),
    );
  });

  it('is a warning that says why when it cannot apply', () => {
    expect(dailyCheck('max-daily-used', 'fail', balance(null), { kind: 'amount', value: new Decimal(5) }, words)).toMatchObject({ level: 'warn', actual: null, detail: 'does not apply: signed in with a device token, no key-level limit' });
    const noLimit = dailyCheck('max-daily-used', 'fail', balance({ name: 'k', daily_cost_used: '3.00' }), { kind: 'percent', value: new Decimal(50) }, words);
    expect(noLimit).toMatchObject({ level: 'warn', actual: null });
    expect(noLimit.detail).toMatch(/no daily limit to take a share of \(spent CNY 3 today\)/);
  });
});

describe('keyQuotaCheck', () => {
  const c = { name: 'min-key-remaining', limit: '10', level: 'fail' as const, value: new Decimal(10) };
  it('passes at or above the floor, in the unit the record states', () => {
    const quota = (remaining: string, currency?: string) => ({ state: 'quota' as const, quota: { remaining: new Decimal(remaining), granted: new Decimal(50), used: new Decimal(0), currency, unlimited: false } });
    expect(keyQuotaCheck(c, quota('10', 'CNY') as never, words)).toMatchObject({ level: 'pass', unit: 'CNY', detail: "left of the key's own quota of CNY 50 granted" });
    expect(keyQuotaCheck(c, quota('9.99', 'CNY') as never, words)).toMatchObject({ level: 'fail' });
    // No unit stated: it cannot be set against yuan.
    expect(keyQuotaCheck(c, quota('500') as never, words)).toMatchObject({ level: 'warn', actual: null, detail: 'does not apply: the token record states no unit (500 units left), so it cannot be set against yuan' });
    expect(keyQuotaCheck(c, { state: 'none', reason: 'the key has no quota of its own' }, words)).toMatchObject({ level: 'warn', detail: 'does not apply: the key has no quota of its own' });
  });
});

describe('runwayCheck', () => {
  const loaded = (runwayDays: number | null, basis: 'balance' | 'key_quota' = 'balance') => ({ forecast: { runwayDays: runwayDays === null ? null : new Decimal(runwayDays), runwayBasis: basis, basis: { days: 7 } } }) as unknown as LoadedForecast;
  it('passes when the runway is at least the days asked, and says why when nothing is spent', () => {
    expect(runwayCheck('min-runway', 'fail', loaded(14), 14)).toMatchObject({ level: 'pass', actual: '14' });
    expect(runwayCheck('min-runway', 'fail', loaded(13), 14)).toMatchObject({ level: 'fail' });
    expect(runwayCheck('min-runway', 'fail', loaded(3, 'key_quota'), 14).detail).toMatch(/the key's own quota runs out first/);
    expect(runwayCheck('min-runway', 'fail', loaded(null), 14)).toMatchObject({ level: 'pass', actual: null, detail: 'no spend at the pace of the last 7 complete days: the balance is not being used up' });
  });
});

describe('the balance\'s, the run\'s and the models\' gates', () => {
  it('the balance against its minimum (fail) and warning level, exactly at the line a pass', () => {
    const gates = balanceGates(balance({ name: 'k', daily_cost_limit: '10.00', daily_cost_used: '9.50' }), { minBalance: new Decimal('100'), warnBalance: new Decimal('100.01'), maxDaily: { kind: 'percent', value: new Decimal(90) } }, words);
    expect(gates.map((g) => [g.name, g.level, g.actual, g.limit, g.unit])).toEqual([
      ['min-balance', 'pass', '100.00', '100', 'CNY'],
      ['warn-balance', 'warn', '100.00', '100.01', 'CNY'],
      ['max-daily-used', 'fail', '95', '90', 'percent'],
    ]);
  });

  it("a run's spend since its mark against the most and the warning level, with whose spend it measured", () => {
    const run = { spend: new Decimal('4.50000001'), basis: 'key' as const, why: "this key's spend today moved by 4.50000001" };
    const gates = runSpendGates(run, '2026-11-27T08:00:00Z', 'CNY', { maxRun: new Decimal('5'), warnRun: new Decimal('4.5') });
    expect(gates.map((g) => [g.name, g.level, g.actual, g.limit, g.basis])).toEqual([
      ['max-run-spend', 'pass', '4.50000001', '5', 'key'],
      ['warn-run-spend', 'warn', '4.50000001', '4.5', 'key'],
    ]);
    expect(gates[0]!.detail).toBe("since the mark of 2026-11-27T08:00:00Z: this key's spend today moved by 4.50000001");
  });

  it('a model the key cannot call fails, with the one of its list most likely meant', () => {
    const gates = modelGates([{ id: 'gpt-5' }, { id: 'glm-4.6' }], ['glm-4.6', 'gpt5']);
    expect(gates).toEqual([
      { name: 'require-model:glm-4.6', level: 'pass', actual: 'available', limit: 'glm-4.6', unit: 'model' },
      { name: 'require-model:gpt5', level: 'fail', actual: 'not available to this key', limit: 'gpt5', unit: 'model', detail: 'did you mean gpt-5?' },
    ]);
  });
});

describe("a budget gate's period (its alert is sent once a period)", () => {
  const budgets = [{ name: 'monthly', period: { start: 1_700_000_000 } }, { name: 'm2', period: { start: 1_800_000_000 } }];
  it.each([
    ['budget:monthly', 1_700_000_000],
    ['budget:monthly@80%', 1_700_000_000],
    ['budget:m2@12.5%', 1_800_000_000],
    ['budget-projected:monthly', 1_700_000_000],
    ['budget:other', undefined],
    ['min-balance', undefined],
    ['budget:monthly@80', undefined],
  ])('%s is of %s', (gate, start) => {
    expect(gatePeriod(gate, budgets)).toBe(start);
  });
  it('knows every name budgetGateName gives', () => {
    fc.assert(
      fc.property(fc.constantFrom('monthly', 'm2'), fc.integer({ min: 1, max: 1000 }), fc.boolean(), fc.boolean(), (name, percent, projected, threshold) => {
        const gate = budgetGateName({ name, percent: new Decimal(percent), projected, threshold });
        expect(gatePeriod(gate, budgets)).toBe(budgets.find((b) => b.name === name)!.period.start);
      }),
    );
  });
});
