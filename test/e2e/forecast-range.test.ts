// forecast's range and --backtest as the built binary against the sandbox: the range sits
// around the month's projection and never below what is spent; the backtest's figures add up
// (its mean error is the mean of the weeks' errors, its count of hits the weeks inside), the same
// tomorrow for the weeks both runs cover, and its flags are checked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { runTally, tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30);
const work = tempDir();
let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480 });
  env = { TALLY_CONFIG_DIR: work.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: 'UTC' };
});
afterAll(async () => {
  await sandbox.close();
  work.remove();
});

interface Week { start: number; projected: string; low: string | null; high: string | null; actual: string; error_percent: string | null; inside: boolean | null }

describe('how sure the forecast is', () => {
  it("gives the month a range: never below the month so far, its middle inside it, said in the panel with its coverage", async () => {
    const json = await runTally(['forecast', '--json'], { env, now: NOW });
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout) as { month_to_date: string; projected_month_end: string; projected_month_end_range: { low: string; high: string; middle: string; coverage: string; method: string; days: number } };
    const range = doc.projected_month_end_range;
    expect(range).toMatchObject({ coverage: '0.8', method: 'weekday' });
    expect(range.days).toBeGreaterThanOrEqual(28);
    expect(Number(range.low)).toBeGreaterThanOrEqual(Number(doc.month_to_date));
    expect(Number(range.low)).toBeLessThanOrEqual(Number(range.middle));
    expect(Number(range.middle)).toBeLessThanOrEqual(Number(range.high));
    for (const amount of [range.low, range.high, range.middle]) expect(amount).toMatch(/^\d+(\.\d{1,8})?$/);
    const panel = await runTally(['forecast'], { env, now: NOW });
    expect(panel.stdout).toMatch(/This month +¥[\d,.]+ so far; ¥[\d,.]+ projected by the month's end \(80% range ¥[\d,.]+ to ¥[\d,.]+, with the weekday pattern\)/);
  });

  it('backtests the method over past weeks: figures that add up, the same weeks the same tomorrow', async () => {
    const today = await runTally(['forecast', '--backtest', '--weeks', '6', '--json'], { env, now: NOW });
    expect(today.code, today.stderr).toBe(0);
    const doc = JSON.parse(today.stdout) as { weeks: Week[]; mape_percent: string; inside: number; ranged: number; basis_days: number };
    expect(doc.weeks).toHaveLength(6);
    expect(doc.basis_days).toBe(7);
    const errors = doc.weeks.filter((w) => w.error_percent !== null).map((w) => Math.abs(Number(w.error_percent)));
    expect(Number(doc.mape_percent)).toBeCloseTo(errors.reduce((a, b) => a + b, 0) / errors.length, 1);
    expect(doc.inside).toBe(doc.weeks.filter((w) => w.inside).length);
    for (const w of doc.weeks) {
      expect(w.inside).toBe(Number(w.actual) >= Number(w.low) && Number(w.actual) <= Number(w.high));
      if (w.error_percent !== null) expect(Number(w.error_percent)).toBeCloseTo(((Number(w.projected) - Number(w.actual)) / Number(w.actual)) * 100, 1);
    }
    // Tomorrow, the weeks both runs cover are judged alike: the method sees only the days before each week.
    const tomorrow = await runTally(['forecast', '--backtest', '--weeks', '6', '--json'], { env, now: NOW + 7 * 86_400_000 });
    const later = JSON.parse(tomorrow.stdout) as { weeks: Week[] };
    for (const w of later.weeks) {
      const same = doc.weeks.find((x) => x.start === w.start);
      if (same) expect(w).toEqual(same);
    }
    expect(later.weeks.filter((w) => doc.weeks.some((x) => x.start === w.start))).toHaveLength(5);
    const table = await runTally(['forecast', '--backtest'], { env, now: NOW });
    expect(table.stdout).toMatch(/^week of +projected +range \(80%\) +actual +error +outcome$/m);
    expect(table.stdout).toMatch(/Mean absolute percentage error \d+\.\d% over 8 weeks/);
  });

  it.each([
    [['--weeks', '4'], /--weeks goes with --backtest/],
    [['--backtest', '--weeks', '0'], /--weeks/],
    [['--backtest', '--weeks', '53'], /--weeks/],
  ])('refuses %j (exit 2)', async (args, message) => {
    const result = await runTally(['forecast', ...args], { env, now: NOW });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});
