// tally check's flags as a typed request: a pure function, tested without a gateway or a context.
import { describe, expect, it } from 'vitest';
import { type CheckOptions, checkRequest } from '../../src/flags/check-request.js';
import { UsageError } from '../../src/errors.js';

const request = (options: CheckOptions, json = false) => checkRequest(options, { json });
const refusal = (options: CheckOptions, json = false) => {
  try {
    request(options, json);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('not refused');
};

describe('checkRequest', () => {
  it('parses amounts, shares, days and gates into typed values', () => {
    const r = request({ minBalance: '1,000', maxDailyUsed: '80%', warnDailyUsed: '¥20', minRunway: '14', budget: ['monthly', 'team:80%'], budgetProjected: ['monthly'], maxGrowth: '50', requireModel: ['gpt-5'] });
    expect(r.minBalance?.toFixed()).toBe('1000');
    expect(r.maxDaily).toMatchObject({ kind: 'percent' });
    expect(r.maxDaily?.value.toFixed()).toBe('80');
    expect(r.warnDaily).toMatchObject({ kind: 'amount' });
    expect(r.minRunway).toBe(14);
    expect(r.runway).toBe(true);
    expect(r.budgetGates.map((g) => [g.name, g.percent.toFixed(), g.level, g.projected ?? false])).toEqual([
      ['monthly', '100', 'fail', false],
      ['team', '80', 'fail', false],
      ['monthly', '100', 'fail', true],
    ]);
    expect(r.growthGates).toHaveLength(1);
    expect(r.models).toEqual(['gpt-5']);
    expect(r.windowed).toBe(true);
  });

  it('refuses a flag without the one it goes with, and no condition at all', () => {
    expect(refusal({})).toMatch(/^no condition given/);
    expect(refusal({ minBalance: '1', since: '7d' })).toMatch(/--since, --until, --month and --last go with --max-spend/);
    expect(refusal({ minBalance: '1', days: '7' })).toMatch(/--days goes with --min-runway/);
    expect(refusal({ minBalance: '1', compare: 'previous' })).toMatch(/--compare goes with --max-growth/);
    expect(refusal({ minBalance: '1', mark: 'run' })).toMatch(/--mark and --mark-file go with --max-run-spend/);
    expect(refusal({ anomalies: true, warnAnomalies: true })).toMatch(/give one of them/);
    expect(refusal({ minBalance: '1', markdown: true }, true)).toMatch(/--markdown and --json/);
    expect(refusal({ maxPriceImpact: '5', until: 'now' })).toMatch(/takes --since only/);
  });

  it('refuses bad values with the flag named', () => {
    expect(refusal({ minBalance: '-5' })).toBe('--min-balance "-5": an amount cannot be negative');
    expect(refusal({ minRunway: 'soon' })).toMatch(/^--min-runway "soon" is not a whole number/);
    expect(refusal({ warnBudget: ['monthly'] })).toMatch(/needs a share/);
    expect(refusal({ budget: ['monthly:0%'] })).toMatch(/more than 0%/);
  });
});
