// Budgets as figures (figures/budgets.ts), against a mock gateway: a key's budget of some models
// counted from spend per model over its period (globs matched, other models left out) and
// projected at the same spend's pace over the forecast's days; an account budget counted from
// the hour buckets; a budget whose spend the gateway states as someone else's not measured
// (never counted from another's spend), and why.
import { mkdirSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { budgetJson, loadBudgets } from '../../src/figures/budgets.js';
import { GW, KEY, mockGateway, tempDir, testContext } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0); // 27 November 2026, 09:00 UTC
const json = { headers: { 'content-type': 'application/json' } };
const utc = (d: number, h = 0) => Date.UTC(2026, 10, d, h) / 1000;

let state: ReturnType<typeof tempDir>;
beforeEach(() => {
  state = tempDir();
});
afterEach(() => state.remove());

function withBudgets(budgets: Record<string, unknown>) {
  mkdirSync(state.path, { recursive: true });
  writeFileSync(`${state.path}/config.json`, JSON.stringify({ profiles: { default: { budgets } } }), { mode: 0o600 });
  return { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TALLY_CONFIG_DIR: state.path };
}

/** The balance, ¥2 a day of usage (UTC days, hours of ¥0.25 today), and spend per model by window. */
function gateway(perModel: (start: number, end: number) => Record<string, unknown>) {
  const gw = mockGateway();
  gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, '{"currency":"CNY","balance":"500.00","lifetime_spend":"900.00","plan":{"has_active_plan":false},"api_key":null}', json).persist();
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/usage?') })
    .reply((request) => {
      const url = new URL(String(request.path), GW);
      const [bucket, start, end] = [url.searchParams.get('bucket'), Number(url.searchParams.get('start')), Number(url.searchParams.get('end'))];
      const step = bucket === 'hour' ? 3600 : 86_400;
      const buckets = [];
      for (let t = Math.ceil(start / step) * step; t < Math.min(end, NOW / 1000); t += step) buckets.push({ at: t, spent: bucket === 'hour' ? '0.25' : '2.00' });
      return { statusCode: 200, data: JSON.stringify({ scope: 'account', buckets, totals: {} }), responseOptions: json };
    })
    .persist();
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/usage/models?') })
    .reply((request) => {
      const url = new URL(String(request.path), GW);
      return { statusCode: 200, data: JSON.stringify(perModel(Number(url.searchParams.get('start')), Number(url.searchParams.get('end')))), responseOptions: json };
    })
    .persist();
  return gw;
}

const models = (rows: [string, string][], scope = 'key') => ({ scope, rows: rows.map(([name, fee]) => ({ model: name, fee })) });

describe('budgets', () => {
  it("a key's budget of glm-* models: this month's spend of those models, projected at their pace over the last seven days", async () => {
    const env = withBudgets({ glm: { amount: '100', period: 'month', zone: 'UTC', starts: 1, scope: 'key', models: ['glm-*'] } });
    const gw = gateway((start) =>
      start === utc(1)
        ? models([['glm-4.6', '30.00'], ['glm-4.5-air', '10.50'], ['deepseek-chat', '99.00']])
        : models([['glm-4.6', '7.00'], ['glm-4.5-air', '0.70'], ['deepseek-chat', '50.00']]),
    );
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const [glm] = budgetJson(await loadBudgets(ctx, [])).budgets;
    // ¥30 + ¥10.50 this month (deepseek left out); ¥7.70 over the 20th to the 26th is ¥1.10 a day,
    // for the 3.625 days left: ¥44.4875 by the month's end. 26 days and 9 hours of 30 gone.
    expect(glm).toMatchObject({ spent: '40.5', percent: '40.5', elapsed_percent: '87.9', projected: '44.4875', resets_in_days: '3.6', state: 'on track', start_iso: '2026-11-01T00:00:00+00:00', end_iso: '2026-12-01T00:00:00+00:00' });
  });

  it("the whole account's budget: added up from the hour buckets of its period, projected at the forecast's pace", async () => {
    const env = withBudgets({ all: { amount: '160', period: 'month', zone: 'UTC', starts: 1 } });
    const gw = gateway(() => models([]));
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const [all] = budgetJson(await loadBudgets(ctx, ['all'])).budgets;
    // 633 hours of ¥0.25 since 1 November; ¥2 a day for the 3.625 days left: past ¥160 by the end.
    expect(all).toMatchObject({ spent: '158.25', projected: '165.5', state: 'ahead of pace' });
  });

  it("a key's budget where the gateway states spend per model as the account's: not measured, and why", async () => {
    const env = withBudgets({ mine: { amount: '50', period: 'week', zone: 'UTC', starts: 'mon', scope: 'key' } });
    const gw = gateway(() => models([['glm-4.6', '3.00']], 'account'));
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const [mine] = (await loadBudgets(ctx, ['mine'])).budgets;
    expect(mine!.standing).toBeUndefined();
    expect(mine!.notMeasured).toBe("the gateway states its spend per model as the whole account's, so this key's spend cannot be told");
  });

  it("a budget of models one of which states no amount tally can read: not measured (never the others' sum); a budget of other models measured", async () => {
    const env = withBudgets({ glm: { amount: '100', period: 'month', zone: 'UTC', starts: 1, scope: 'key', models: ['glm-*'] }, deep: { amount: '500', period: 'month', zone: 'UTC', starts: 1, scope: 'key', models: ['deepseek-*'] } });
    const gw = gateway(() => ({ scope: 'key', rows: [{ model: 'glm-4.6', fee: '30.00' }, { model: 'glm-4.6', fee: null }, { model: 'deepseek-chat', fee: '99.00' }] }));
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const byName = Object.fromEntries((await loadBudgets(ctx, [])).budgets.map((b) => [b.name, b]));
    expect(byName.glm!.standing).toBeUndefined();
    expect(byName.glm!.notMeasured).toBe("the gateway states no amount tally can read for glm-4.6, so this key's spend of these models cannot be told");
    expect(byName.deep!.standing?.spent.toFixed()).toBe('99');
  });

  it('a budget that is not stored is said, with the ones that are', async () => {
    const env = withBudgets({ glm: { amount: '100', period: 'month', zone: 'UTC', starts: 1 } });
    const { ctx } = testContext({ transport: mockGateway().transport, env, now: () => NOW });
    await expect(loadBudgets(ctx, ['gml'])).rejects.toThrow('there is no budget "gml"');
  });
});

describe("a budget's days on the gateway's grid (gridWindow)", () => {
  it("asks a period's grid days up to the end of the running day, and refuses a period that begins between two of them", async () => {
    const { gridWindow } = await import('../../src/figures/budgets.js');
    const DAY = 86_400;
    fc.assert(
      fc.property(fc.integer({ min: -11, max: 14 }), fc.integer({ min: -11, max: 14 }), fc.integer({ min: 20_000, max: 21_000 }), fc.integer({ min: 0, max: DAY - 1 }), (gridHours, zoneHours, day, into) => {
        const grid = gridHours * 3600;
        const start = day * DAY - zoneHours * 3600;
        const period = { start, end: start + 7 * DAY };
        const until = start + into + 2 * DAY;
        const window = gridWindow(period, until, grid);
        // Offsets a whole day apart (+13:00 and -11:00) begin their days at the same instant.
        if ((gridHours - zoneHours) % 24 !== 0) {
          expect(typeof window).toBe('string');
          return;
        }
        // The period's own start; the end of the grid day that holds the last second measured (`until` is exclusive), the running day whole.
        expect(window).toEqual({ start, end: start + (into === 0 ? 2 : 3) * DAY });
      }),
    );
  });
});
