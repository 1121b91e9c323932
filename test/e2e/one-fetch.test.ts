// A run asks for each figure once: a report's day series (the period, the one before, the
// forecast's and the anomalies') come from one request for the recent days, and say the same as
// `usage` asked for each window on its own.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { runTally, tempDir } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30); // a Wednesday
const fixture = sandboxForFile(NOW, { accountLimit: 100_000 });

async function counted(args: string[], state: string) {
  const before = fixture.sandbox.requests.length;
  const result = await runTally(args, { env: { ...fixture.env, TALLY_CONFIG_DIR: state }, now: NOW });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return { out: JSON.parse(result.stdout), paths: fixture.sandbox.requests.slice(before).map((r) => r.path) };
}

describe('one request per figure', () => {
  it.each([
    ['week', ['report', '--period', 'week', '--json']],
    ['month', ['report', '--period', 'month', '--json']],
    ['custom period', ['report', '--since', '2026-11-10', '--until', '2026-11-20', '--json']],
  ])('a %s report asks for its days once, on a first run and once the grid is known', async (_, args) => {
    const state = tempDir();
    try {
      for (const run of ['first', 'again']) {
        const { out, paths } = await counted(args, state.path);
        // One day series, the balance, the key's spend per model for the period and the one before, and (the first time) the key's quota.
        expect(paths.filter((p) => p === '/v1/open/usage'), run).toHaveLength(1);
        const others = paths.filter((p) => p !== '/v1/open/usage/models');
        expect(others.length, `${run}: ${paths.join(' ')}`).toBeLessThanOrEqual(3);
        // Spend per model for the two periods, and the narrowing that dates a model finding by its day
        // (at most three windows a round, two rounds for a week); on a first run, the two periods
        // as they would be on UTC's days were asked while the grid was learned (this gateway's are not).
        const guessed = run === 'first' ? 2 : 0;
        const dated = out.anomalies.filter((a: { kind: string }) => ['new_model', 'stopped_model', 'zero_cost'].includes(a.kind)).length;
        expect(paths.length - others.length, `${run}: ${paths.join(' ')}`).toBeLessThanOrEqual(2 + guessed + (args.includes('week') ? 4 : 12) * dated);
        if (dated === 0) expect(paths.length).toBeLessThanOrEqual(5 + guessed);
      }
    } finally {
      state.remove();
    }
  });

  it("a report's days, its total and the one before are what usage says of each window on its own", async () => {
    const state = tempDir();
    try {
      const { out } = await counted(['report', '--period', 'week', '--json'], state.path);
      const days = await counted(['usage', '--bucket', 'day', '--since', String(out.period.start), '--until', String(out.period.end), '--json'], state.path);
      expect(out.daily.map((d: { start: number; amount: string }) => [d.start, new Decimal(d.amount).toFixed()])).toEqual(days.out.buckets.map((b: { start: number; cost: string }) => [b.start, new Decimal(b.cost).toFixed()]));
      const before = await counted(['usage', '--bucket', 'day', '--since', String(out.period.previous.start), '--until', String(out.period.previous.end), '--json'], state.path);
      expect(new Decimal(out.spend.previous).toFixed()).toBe(new Decimal(before.out.totals.cost).toFixed());
      expect(new Decimal(out.spend.current).toFixed()).toBe(new Decimal(days.out.totals.cost).toFixed());
    } finally {
      state.remove();
    }
  });
});

describe('a report in two rounds of requests', () => {
  it('asks for the balance and the key quota together with its first request for days, not after it', async () => {
    const state = tempDir();
    try {
      // The day series never answers: whatever was asked meanwhile was asked together with it.
      // Every request for it hangs while this run lasts (one left over from an earlier test's run,
      // late on a loaded machine, cannot take the fault meant for this one).
      fixture.sandbox.faults.push({ kind: 'hang', path: '/v1/open/usage', times: 1_000_000 });
      const before = fixture.sandbox.requests.length;
      const result = await runTally(['--timeout', '3', 'report', '--period', 'week', '--json'], { env: { ...fixture.env, TALLY_CONFIG_DIR: state.path }, now: NOW });
      expect(result.code).not.toBe(0);
      const asked = fixture.sandbox.requests.slice(before).map((r) => r.path);
      expect(asked).toContain('/v1/open/usage');
      expect(asked).toContain('/v1/open/balance');
      expect(asked).toContain('/api/usage/token/');
      // And the two periods' models as they would be on UTC's days (this gateway's are not: asked again once it says so).
      expect(asked.filter((p) => p === '/v1/open/usage/models')).toHaveLength(2);
    } finally {
      fixture.sandbox.faults.splice(0);
      state.remove();
    }
  });
});

describe('a first run asks for its windows while it learns the grid', () => {
  const utc = sandboxForFile(NOW, { accountLimit: 100_000, dayOffsetMinutes: 0 });

  it.each([
    ['anomalies', ['anomalies', '--json'], 2],
    ['export', ['export', '--since', '30d'], 3],
    ['report', ['report', '--period', 'week', '--json'], 2],
  ])('%s: on a gateway keeping UTC days, its first windows go out with the request that learns the grid', async (_, args, ahead) => {
    const state = tempDir();
    try {
      // The request that learns the grid never answers: whatever was asked meanwhile went out with it.
      utc.sandbox.faults.push({ kind: 'hang', path: '/v1/open/usage', times: 1 });
      const before = utc.sandbox.requests.length;
      const result = await runTally(['--timeout', '3', ...args], { env: { ...utc.env, TALLY_CONFIG_DIR: state.path }, now: NOW });
      expect(result.code).not.toBe(0);
      const asked = utc.sandbox.requests.slice(before).map((r) => r.path);
      expect(asked.filter((p) => p === '/v1/open/usage')).toHaveLength(1);
      expect(asked.filter((p) => p === '/v1/open/usage/models')).toHaveLength(ahead);
    } finally {
      utc.sandbox.faults.splice(0);
      state.remove();
    }
  });

  it.each([
    ['anomalies', ['anomalies', '--json'], 2],
    ['export', ['export', '--since', '30d'], 3],
    ['report', ['report', '--period', 'week', '--json'], 2],
  ])('%s: on a gateway keeping other days (+08:00), what was asked ahead is left unused: the same answer as once the grid is known', async (_, args, ahead) => {
    const state = tempDir();
    try {
      const run = async () => {
        const before = fixture.sandbox.requests.length;
        const result = await runTally(args, { env: { ...fixture.env, TALLY_CONFIG_DIR: state.path }, now: NOW });
        expect(result.code).toBe(0);
        return { stdout: result.stdout, models: fixture.sandbox.requests.slice(before).filter((r) => r.path === '/v1/open/usage/models').map((r) => `${r.query.start}-${r.query.end}`) };
      };
      const first = await run();
      const again = await run();
      expect(first.stdout).toBe(again.stdout);
      // Every window of the second run was asked the first time too, and at most `ahead` more,
      // besides the days the second run remembered (a spike's: figures/model-days.ts).
      expect(again.models.every((url) => first.models.includes(url))).toBe(true);
      const oneDay = (url: string) => Number(url.split('-')[1]) - Number(url.split('-')[0]) === 86_400;
      const remembered = first.models.filter((url) => oneDay(url) && !again.models.includes(url)).length;
      expect(first.models.length).toBeLessThanOrEqual(again.models.length + ahead + remembered);
      expect(first.models.length).toBeGreaterThan(again.models.length);
    } finally {
      state.remove();
    }
  });
});

describe('status on a first run', () => {
  it('asks for the week per model on the gateway\'s days once the day series shows them (+08:00): the same as once the grid is known', async () => {
    const state = tempDir();
    try {
      const run = async () => {
        const before = fixture.sandbox.requests.length;
        const result = await runTally(['status', '--json'], { env: { ...fixture.env, TALLY_CONFIG_DIR: state.path }, now: NOW });
        expect(result.code).toBe(0);
        return { out: JSON.parse(result.stdout), weeks: fixture.sandbox.requests.slice(before).filter((r) => r.path === '/v1/open/usage/models').map((r) => `${r.query.start}-${r.query.end}`) };
      };
      const first = await run();
      const again = await run();
      expect(again.weeks).toHaveLength(1);
      // The first run guessed UTC's days, then asked for the gateway's: the last is the week shown.
      expect(first.weeks.at(-1)).toBe(again.weeks[0]);
      expect(first.out.top_models).toEqual(again.out.top_models);
      expect(Number(again.weeks[0]!.split('-')[0]) % 86_400).toBe(16 * 3600);
    } finally {
      state.remove();
    }
  });
});

describe('what a first run asks ahead, under a rate limit that holds', () => {
  const utc = sandboxForFile(NOW, { accountLimit: 100_000, dayOffsetMinutes: 0 });

  it.each([
    ['anomalies', ['anomalies', '--json']],
    ['export', ['export', '--since', '30d']],
  ])('%s: the windows asked ahead are refused and waited for like any other; the answer is the one a second run gives', async (_, args) => {
    const state = tempDir();
    try {
      // The first two requests for spend per model (both asked ahead) are refused, the window reopening in a second.
      utc.sandbox.faults.push({ kind: 'rate-limit', path: '/v1/open/usage/models', times: 2, headers: { 'Retry-After': '1' } });
      const run = () => runTally(args, { env: { ...utc.env, TALLY_CONFIG_DIR: state.path }, now: NOW });
      const first = await run();
      const again = await run();
      expect(again.code).toBe(0);
      expect({ code: first.code, stdout: first.stdout }).toEqual({ code: 0, stdout: again.stdout });
    } finally {
      utc.sandbox.faults.splice(0);
      state.remove();
    }
  });
});
