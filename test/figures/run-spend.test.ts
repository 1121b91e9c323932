// The counters a CI run is measured by (figures/run-spend.ts), against a mock gateway: the
// lifetime spend and the key's spend today as the gateway sent them, with the day of the
// gateway's grid the key's counter belongs to; and the mark to set them against, refused in
// words (how to make one) when there is none.
import { describe, expect, it } from 'vitest';
import { markFor, readCounters } from '../../src/figures/run-spend.js';
import { GW, KEY, mockGateway, tempDir, testContext } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0);
const json = { headers: { 'content-type': 'application/json' } };

describe('the run counters', () => {
  it("the lifetime spend and the key's today as sent, the key's on the gateway's day (+08:00: from 16:00 UTC)", async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, '{"currency":"CNY","balance":"50.00","lifetime_spend":"1234.50000000","plan":{"has_active_plan":false},"api_key":{"name":"ci","prefix":"sk-ci","daily_cost_limit":"10.00","daily_cost_used":"3.25"}}', json);
    // The gateway's days start at 16:00 UTC (its buckets say so).
    gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/usage?') }).reply(200, JSON.stringify({ buckets: [{ at: Date.UTC(2026, 10, 25, 16) / 1000, yuan: '1.00' }, { at: Date.UTC(2026, 10, 26, 16) / 1000, yuan: '2.00' }], totals: {} }), json);
    const { ctx } = testContext({ transport: gw.transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY }, now: () => NOW });
    const { reading, now } = await readCounters(ctx);
    expect(reading).toEqual({ lifetimeSpend: '1234.50000000', key: { dailyCostUsed: '3.25', day: Date.UTC(2026, 10, 26, 16) / 1000 } });
    expect(now).toBe(NOW / 1000);
  });

  it('no mark to set them against: refused, with how to make one', async () => {
    const state = tempDir();
    try {
      const { ctx } = testContext({ transport: mockGateway().transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TALLY_CONFIG_DIR: state.path }, now: () => NOW });
      await expect(markFor(ctx, { mark: 'eval' })).rejects.toThrow(/^there is no mark "eval" \(.*\); make one at the start of the job with `tally mark eval`$/);
      await expect(markFor(ctx, { markFile: `${state.path}/m.json` })).rejects.toThrow(/make one at the start of the job with `tally mark --file .*m\.json`$/);
    } finally {
      state.remove();
    }
  });
});
