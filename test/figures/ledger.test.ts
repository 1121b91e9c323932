// The ledger finance reconciles (figures/ledger.ts), against a mock gateway with field names of
// its own: one row per day and model, models in name order, calls, tokens and the amount exactly
// as the records add up, each row dated on the gateway's grid and marked complete only when its
// day has ended; the account's spend beside a key's rows; --append's days left out, and the
// running day left for a later run.
import { describe, expect, it } from 'vitest';
import { loadLedger } from '../../src/figures/ledger.js';
import { GW, KEY, mockGateway, testContext } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0); // 17:00 on the 27th at +08:00
const DAY = 86_400;
const json = { headers: { 'content-type': 'application/json' } };
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };
/** A +08:00 day's start. */
const day8 = (d: number) => Date.UTC(2026, 10, d) / 1000 - 8 * 3600;

/** Each day: two records of glm-4.6 (split by channel) and one of deepseek-chat; the account's series. */
function gateway() {
  const gw = mockGateway();
  const asked: number[] = [];
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/usage/models?') })
    .reply((request) => {
      const start = Number(new URL(String(request.path), GW).searchParams.get('start'));
      asked.push(start);
      const n = (start - day8(24)) / DAY + 1;
      const items = [
        { llm: 'glm-4.6', channel: 'a', times: 3 * n, input_token_count: 1000 * n, output_token_count: 100 * n, yuan: '0.10000001' },
        { llm: 'deepseek-chat', channel: 'a', times: 1, input_token_count: 10, output_token_count: 1, yuan: '0.00000009' },
        { llm: 'glm-4.6', channel: 'b', times: 1, input_token_count: 5, output_token_count: 5, yuan: '2.5' },
      ];
      return { statusCode: 200, data: JSON.stringify({ scope: 'key', items }), responseOptions: json };
    })
    .persist();
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/usage?') })
    .reply(200, JSON.stringify({ scope: 'account', buckets: [24, 25, 26].map((d) => ({ ts: day8(d), yuan: '10.00' })), totals: { yuan: '30.00' } }), json)
    .persist();
  return { gw, asked };
}

describe('the ledger', () => {
  it('one row a day and model, added exactly, dated on the grid, complete once the day has ended, with the account beside the key', async () => {
    const { gw } = gateway();
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const ledger = await loadLedger(ctx, { since: '2026-11-25', until: '2026-11-28', utcOffset: '+08:00' });
    expect(ledger.rows.map((r) => [r.date, r.model, r.calls, r.input_tokens, r.output_tokens, r.amount, r.complete, r.zone, r.scope])).toEqual([
      ['2026-11-25', 'deepseek-chat', '1', '10', '1', '0.00000009', true, 'UTC+08:00', 'key'],
      ['2026-11-25', 'glm-4.6', '7', '2005', '205', '2.60000001', true, 'UTC+08:00', 'key'],
      ['2026-11-26', 'deepseek-chat', '1', '10', '1', '0.00000009', true, 'UTC+08:00', 'key'],
      ['2026-11-26', 'glm-4.6', '10', '3005', '305', '2.60000001', true, 'UTC+08:00', 'key'],
      ['2026-11-27', 'deepseek-chat', '1', '10', '1', '0.00000009', false, 'UTC+08:00', 'key'],
      ['2026-11-27', 'glm-4.6', '13', '4005', '405', '2.60000001', false, 'UTC+08:00', 'key'],
    ]);
    expect(ledger.scope).toBe('key');
    expect(ledger.accountSpend).toBe('30.00');
    expect(ledger.incomplete).toBe(false);
    // The spend these rows are: three days of 0.00000009 + 2.60000001.
    expect(ledger.spend).toBe('7.8000003');
  });

  it('--append: the days the file holds are not asked, nor the running day', async () => {
    const { gw, asked } = gateway();
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const ledger = await loadLedger(ctx, { since: '2026-11-24', until: '2026-11-28', utcOffset: '+08:00', skipDates: new Set(['2026-11-24']), endedOnly: true });
    expect([...new Set(ledger.rows.map((r) => r.date))]).toEqual(['2026-11-25', '2026-11-26']);
    expect(asked.sort()).toEqual([day8(25), day8(26)]);
    expect({ skipped: ledger.skipped, running: ledger.running, account: ledger.accountSpend }).toEqual({ skipped: 1, running: ['2026-11-27'], account: undefined });
  });

  it('more than a year of days is refused before anything is asked', async () => {
    const { ctx } = testContext({ transport: mockGateway().transport, env, now: () => NOW });
    await expect(loadLedger(ctx, { since: '2024-01-01', until: '2026-01-01', utcOffset: '+08:00' })).rejects.toThrow(/more than the 366 one export asks for/);
  });
});
