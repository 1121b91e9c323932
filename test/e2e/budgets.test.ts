// Budgets end to end against the sandbox on a fixed clock: stored per profile, validated as flags
// are, figures from the hour buckets since each period began, gates in check, a line in status.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { runTally } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30); // Friday 17:30 in Shanghai
const file = sandboxForFile(NOW);
const { state } = file;
const tally = (args: string[], extra: NodeJS.ProcessEnv = {}) => runTally(args, { env: { ...file.env, ...extra }, now: NOW });

describe('tally budget', () => {
  it('stores budgets per profile, with the zone in force when set, and lists and removes them', async () => {
    expect((await tally(['budget', 'set', 'monthly', '--amount', '500', '--period', 'month', '--tz', 'Asia/Shanghai'])).stdout).toBe('Set budget "monthly" of profile "default": ¥500.00 a month from day 1, in Asia/Shanghai, of the whole account\'s spend (every key).\nIt counts the whole account\'s spend, every key\'s; --scope key counts this key\'s own.\n');
    expect((await tally(['budget', 'set', 'weekly', '--amount', '20', '--period', 'week', '--starts', 'wed'], { TZ: 'America/New_York' })).code).toBe(0);
    expect((await tally(['budget', 'set', 'daily', '--amount', '1.5', '--period', 'day'])).code).toBe(0);
    const stored = JSON.parse(readFileSync(`${state.path}/config.json`, 'utf8')).profiles.default.budgets;
    expect(stored).toEqual({
      monthly: { amount: '500', period: 'month', zone: 'Asia/Shanghai', starts: 1, scope: 'account' },
      weekly: { amount: '20', period: 'week', zone: 'America/New_York', starts: 'wed', scope: 'account' },
      daily: { amount: '1.5', period: 'day', zone: 'UTC', scope: 'account' },
    });
    expect(JSON.parse((await tally(['budget', 'list', '--json'])).stdout).budgets.map((b: { name: string }) => b.name)).toEqual(['monthly', 'weekly', 'daily']);
    expect((await tally(['budget', 'rm', 'daily'])).code).toBe(0);
    expect(JSON.parse((await tally(['budget', 'list', '--json'])).stdout).budgets).toHaveLength(2);
  });

  it.each([
    [['budget', 'set', 'Bad Name', '--amount', '5', '--period', 'day'], 'budget name "Bad Name"'],
    [['budget', 'set', 'x', '--amount', '-5', '--period', 'day'], '--amount "-5" is not a positive amount'],
    [['budget', 'set', 'x', '--amount', '0', '--period', 'day'], '--amount "0" is not a positive amount'],
    [['budget', 'set', 'x', '--amount', '5', '--period', 'year'], '--period "year" is not one of day, week, month'],
    [['budget', 'set', 'x', '--amount', '5', '--period', 'month', '--starts', '31'], 'a day of the month from 1 to 28'],
    [['budget', 'set', 'x', '--amount', '5', '--period', 'week', '--starts', 'someday'], 'is a weekday'],
    [['budget', 'set', 'x', '--amount', '5', '--period', 'day', '--tz', 'Mars/Base'], '--tz "Mars/Base" is not a zone'],
    [['budget', 'set', 'list', '--amount', '5', '--period', 'day'], 'is a word of `tally budget` itself'],
    [['budget', 'nope'], 'there is no budget "nope"'],
  ])('refuses %j with exit 2 and stores nothing', async (args, words) => {
    const before = readFileSync(`${state.path}/config.json`, 'utf8');
    const result = await tally(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(words);
    expect(readFileSync(`${state.path}/config.json`, 'utf8')).toBe(before);
  });

  it('shows each budget for the period holding now: spent from the hours since it began, shares, projection, reset', async () => {
    const result = await tally(['budget', '--json']);
    expect(result.code).toBe(0);
    const [monthly, weekly] = JSON.parse(result.stdout).budgets;
    expect(Object.keys(monthly)).toEqual(['name', 'amount', 'currency', 'period', 'zone', 'scope', 'start', 'end', 'start_iso', 'end_iso', 'spent', 'percent', 'elapsed_percent', 'projected', 'resets_in_days', 'state']);
    expect(monthly.scope).toBe('account');
    expect([monthly.start_iso, monthly.end_iso]).toEqual(['2026-11-01T00:00:00+08:00', '2026-12-01T00:00:00+08:00']);
    expect([weekly.start_iso, weekly.end_iso]).toEqual(['2026-11-18T00:00:00-05:00', '2026-11-25T00:00:00-05:00']);
    // The month's spend is the usage since 2026-11-01 00:00 in Shanghai, hour by hour.
    const hours = JSON.parse((await tally(['usage', '--bucket', 'hour', '--since', String(Date.UTC(2026, 9, 31, 16) / 1000), '--json'])).stdout);
    expect(monthly.spent).toBe(new Decimal(hours.totals.cost).toFixed());
    expect(monthly.percent).toBe(new Decimal(monthly.spent).div(500).mul(100).toDecimalPlaces(1, Decimal.ROUND_HALF_UP).toFixed(1));
    // 19 days and 17.5 hours of 30 days gone (65.76%); 10 days and 6.5 hours left.
    expect(monthly.elapsed_percent).toBe('65.8');
    expect(monthly.resets_in_days).toBe('10.3');
    const forecast = JSON.parse((await tally(['forecast', '--json'])).stdout);
    const daysLeft = new Decimal(Date.UTC(2026, 10, 30, 16) - NOW).div(86_400_000);
    expect(monthly.projected).toBe(new Decimal(monthly.spent).plus(new Decimal(forecast.basis.spend).div(forecast.basis.days).mul(daysLeft)).toDecimalPlaces(8, Decimal.ROUND_HALF_UP).toFixed());
    const table = await tally(['budget']);
    expect(table.stdout).toMatch(/^monthly +¥[\d,.]+ of ¥500\.00 \(the account\) +[#.|]{20} +\d+\.\d% spent, 65\.8% of the month gone · ¥[\d,.]+ projected · resets in 10\.3 days: (on track|ahead of pace|over)$/m);
  });

  it('gates check on a budget: --budget NAME[:PERCENT%], --warn-budget, --budget-projected', async () => {
    const spent = new Decimal(JSON.parse((await tally(['budget', 'monthly', '--json'])).stdout).budgets[0].spent);
    const below = spent.div(500).mul(100).floor().toFixed();
    const over = await tally(['check', '--json', '--budget', `monthly:${below}%`, '--warn-budget', 'weekly:1%', '--budget-projected', 'weekly']);
    expect(over.code).toBe(5);
    const checks = JSON.parse(over.stdout).checks;
    expect(checks.map((c: { name: string; level: string; unit: string }) => [c.name, c.level, c.unit])).toEqual([
      ['budget:monthly', 'fail', 'CNY'],
      ['budget:weekly', expect.stringMatching(/warn|pass/), 'CNY'],
      ['budget-projected:weekly', expect.stringMatching(/fail|pass/), 'CNY'],
    ]);
    expect(checks[0].actual).toBe(spent.toFixed());
    expect(checks[0].limit).toBe(new Decimal(500).mul(below).div(100).toFixed());
    const fine = await tally(['check', '--budget', 'monthly']);
    expect(fine.code).toBe(spent.gte(500) ? 5 : 0);
  });

  it('puts one line per budget in status', async () => {
    const result = await tally(['status']);
    expect(result.stdout).toMatch(/^Budget monthly +¥[\d,.]+ of ¥500\.00 /m);
    expect(result.stdout).toMatch(/^Budget weekly +¥[\d,.]+ of ¥20\.00 /m);
    expect(JSON.parse((await tally(['status', '--json'])).stdout).budgets).toHaveLength(2);
  });
});

describe('tally budget in colour', () => {
  it('paints the verdict, and never shows its colour codes as text (budget and status alike)', async () => {
    await tally(['budget', 'set', 'painted', '--amount', '100', '--period', 'month']);
    for (const args of [['budget', 'painted'], ['status']]) {
      const result = await tally(args, { FORCE_COLOR: '1', NO_COLOR: undefined });
      expect(result.code).toBe(0);
      expect(result.stdout).not.toContain('\\e[');
      expect(result.stdout).not.toMatch(/\\u001b|\\x1b/);
      expect(result.stdout).toMatch(/\u001b\[3[23]m(on track|ahead of pace)\u001b\[39m|\u001b\[31mover\u001b\[39m/);
    }
  });
});
