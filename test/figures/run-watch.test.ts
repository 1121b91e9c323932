// What a run under `tally run` has spent (figures/run-watch.ts), against a mock gateway whose
// counters move between readings: from the per-call log where the gateway keeps one (each call
// once, its cost added exactly), else from the key's counter for today, or the account's lifetime
// spend with --scope account.
import { describe, expect, it } from 'vitest';
import { RunSpendWatch, startRun } from '../../src/figures/run-watch.js';
import { GW, KEY, mockGateway, testContext } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0);
const json = { headers: { 'content-type': 'application/json' } };
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };

/** A gateway whose counters are what `counters` holds when asked; usage on UTC's days; the log as given (404: none). */
function gateway(counters: { used: string; lifetime: string }, log: 'none' | (() => Record<string, unknown>[])) {
  const gw = mockGateway();
  gw.pool
    .intercept({ path: '/v1/open/balance' })
    .reply(() => ({ statusCode: 200, data: `{"currency":"CNY","balance":"50.00","lifetime_spend":"${counters.lifetime}","plan":{"has_active_plan":false},"api_key":{"name":"ci","prefix":"sk-ci","daily_cost_limit":"10.00","daily_cost_used":"${counters.used}"}}`, responseOptions: json }))
    .persist();
  gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/usage?') }).reply(200, JSON.stringify({ buckets: [{ t: Date.UTC(2026, 10, 26) / 1000, amount: '1.00' }], totals: {} }), json).persist();
  if (log === 'none') gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/logs') }).reply(404, '{"error":"not found"}', json).persist();
  else gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/logs') }).reply(() => ({ statusCode: 200, data: JSON.stringify({ data: log() }), responseOptions: json })).persist();
  return gw;
}

describe('what a run spent', () => {
  it("from the key's counter for today where there is no log: what it moved by since the start", async () => {
    const counters = { used: '1.00', lifetime: '20.00' };
    const gw = gateway(counters, 'none');
    let now = NOW;
    const { ctx } = testContext({ transport: gw.transport, env, now: () => now });
    const watch = new RunSpendWatch(await startRun(ctx, 'key'));
    Object.assign(counters, { used: '1.75', lifetime: '20.75' });
    now += 60_000;
    const reading = await watch.read(ctx);
    expect({ spent: reading.spent.toFixed(), source: reading.source, floor: reading.floor, currency: reading.currency }).toEqual({ spent: '0.75', source: 'key counter', floor: false, currency: 'CNY' });
    expect(watch.passedOver).toMatch(/^the gateway has no per-call log/);
  });

  it("--scope account: the account's lifetime spend since the start", async () => {
    const counters = { used: '1.00', lifetime: '20.00' };
    const gw = gateway(counters, 'none');
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const watch = new RunSpendWatch(await startRun(ctx, 'account'));
    Object.assign(counters, { lifetime: '21.50000001' });
    const reading = await watch.read(ctx);
    expect({ spent: reading.spent.toFixed(), source: reading.source }).toEqual({ spent: '1.50000001', source: 'account counter' });
  });

  it('from the per-call log where there is one: the calls since the start, each once, costs added exactly', async () => {
    const start = NOW / 1000;
    let entries: Record<string, unknown>[] = [{ request_id: 'before', ts: start - 30, model: 'glm-4.6', charge: '9.00' }];
    const gw = gateway({ used: '1.00', lifetime: '20.00' }, () => entries);
    let now = NOW;
    const { ctx } = testContext({ transport: gw.transport, env, now: () => now });
    const watch = new RunSpendWatch(await startRun(ctx, 'key'));
    entries = [...entries, { request_id: 'a', ts: start + 5, model: 'glm-4.6', charge: '0.10000001' }];
    now += 10_000;
    const first = await watch.read(ctx);
    entries = [...entries, { request_id: 'b', ts: start + 15, model: 'glm-4.6', charge: '0.2' }];
    now += 10_000;
    const second = await watch.read(ctx);
    expect({ source: second.source, spent: second.spent.toFixed(), calls: second.calls, landed: second.landed.map((c) => c.entry.request_id) }).toEqual({ source: 'log', spent: '0.30000001', calls: 2, landed: ['b'] });
    expect(first.landed.map((c) => c.entry.request_id)).toEqual(['a']);
  });
});
