// Properties that tie commands together on the sandbox's world (two accounts, several keys, each
// naming): one figure, many views, always the same.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { BETA_BATCH_KEY, BETA_KEY, DEMO_KEY, LIMITED_KEY } from '../../src/sandbox/seed.js';
import { runTally } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
// Three namings, three grids, three seeded histories of the same world.
const namings = {
  compact: sandboxForFile(NOW, { accountLimit: 5000 }),
  detailed: sandboxForFile(NOW, { accountLimit: 5000, naming: 'detailed', dayOffsetMinutes: 0, seed: 1 }),
  iso: sandboxForFile(NOW, { accountLimit: 5000, naming: 'iso', dayOffsetMinutes: -300, seed: 2 }),
};
type Fixture = (typeof namings)['compact'];
const json = async (fixture: Fixture, key: string, args: string[]) => {
  const result = await runTally([...args, '--json'], { env: { ...fixture.env, TALLY_API_KEY: key }, now: NOW });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
};
/** The money total of a usage document (the one decimal-string field of its totals). */
const spendOf = (doc: { totals: Record<string, unknown> }) => new Decimal(Object.values(doc.totals).find((v) => typeof v === 'string' && /^\d+(\.\d+)?$/.test(v)) as string);

describe.each(Object.entries(namings))('the sandbox world, %s naming', (_naming, fixture) => {
  it.each([DEMO_KEY, LIMITED_KEY, BETA_KEY, BETA_BATCH_KEY])('a by-model view says whose figures it holds, and never exceeds the account total of the same window (%s)', async (key) => {
    for (const args of [['usage', '--by', 'model'], ['usage', '--by', 'model', '--bucket', 'week', '--since', '35d']]) {
      const doc = await json(fixture, key, args);
      expect(doc.scope).toBe('key');
      const account = spendOf(await json(fixture, key, ['usage', '--since', String(doc.start), '--until', String(doc.end)]));
      expect(doc.account_spend).toBe(account.toFixed(8));
      expect(new Decimal(doc.key_spend).lte(account)).toBe(true);
    }
  });
});

describe.each(Object.entries(namings))('calendar windows, %s naming', (_naming, fixture) => {
  it.each([['--month', '2026-10'], ['--month', '2026-09'], ['--last', 'quarter'], ['--last', 'month']])('%s %s: the buckets of every size add up to the same total, the window asked for', async (flag, value) => {
    const totals = new Set<string>();
    let window: string | undefined;
    for (const bucket of ['day', 'week', 'month']) {
      const doc = await json(fixture, DEMO_KEY, ['usage', flag, value, '--bucket', bucket]);
      const total = spendOf(doc);
      const money = Object.keys(doc.totals).find((k) => typeof doc.totals[k] === 'string')!;
      const sum = doc.buckets.reduce((acc: Decimal, b: Record<string, string>) => acc.plus(b[money]!), new Decimal(0));
      expect(sum.eq(total)).toBe(true);
      totals.add(total.toFixed());
      window ??= `${doc.start}-${doc.end}`;
      expect(`${doc.start}-${doc.end}`).toBe(window);
    }
    expect(totals.size).toBe(1);
    // The per-model view over the same calendar window keeps to it too.
    const byModel = await json(fixture, DEMO_KEY, ['usage', '--by', 'model', flag, value, '--bucket', 'week']);
    expect(`${byModel.start}-${byModel.end}`).toBe(window);
  });
});

describe('one figure, many views', () => {
  const fixture = namings.compact;
  const run = (key: string, args: string[]) => runTally(args, { env: { ...fixture.env, TALLY_API_KEY: key }, now: NOW });

  it("every key's log of a window adds up to the account's usage of it", async () => {
    const window = ['--since', '2026-11-16', '--until', '2026-11-19'];
    const usage = await json(fixture, DEMO_KEY, ['usage', ...window]);
    let logged = new Decimal(0);
    let calls = 0;
    for (const key of [DEMO_KEY, LIMITED_KEY]) {
      const logs = await json(fixture, key, ['logs', ...window, '--all', '--param', 'limit=200']);
      expect(logs.complete).toBe(true);
      for (const record of logs.records as { cost: string }[]) logged = logged.plus(record.cost);
      calls += logs.records.length;
    }
    expect(logged.toFixed(8)).toBe(usage.totals.cost);
    expect(calls).toBe(usage.totals.calls);
  });

  it("budget, check --budget, status and metrics agree on a budget's spend", async () => {
    expect((await run(DEMO_KEY, ['budget', 'set', 'agreed', '--amount', '40', '--period', 'week', '--tz', 'Asia/Shanghai'])).code).toBe(0);
    try {
      const spent = (await json(fixture, DEMO_KEY, ['budget', 'agreed'])).budgets[0].spent as string;
      expect(new Decimal(spent).gt(0)).toBe(true);
      const check = await run(DEMO_KEY, ['check', '--budget', 'agreed:1000%', '--json']);
      expect(JSON.parse(check.stdout).checks[0].actual).toBe(spent);
      const status = await json(fixture, DEMO_KEY, ['status']);
      expect(status.budgets.find((b: { name: string }) => b.name === 'agreed').spent).toBe(spent);
      const metrics = (await run(DEMO_KEY, ['metrics'])).stdout;
      expect(metrics).toContain(`tally_budget_spent{profile="default",currency="CNY",budget="agreed"} ${spent}\n`);
    } finally {
      await run(DEMO_KEY, ['budget', 'rm', 'agreed']);
    }
  });
});
