// The per-call log as figures, against a mock gateway: what the key spent since an instant (only
// entries in the window by their own time, every page, never a log without amounts read as ¥0),
// and the calls that land, each once, across polls that overlap.
import { describe, expect, it } from 'vitest';
import { CallFollower, spendSince } from '../../src/figures/call-log.js';
import { GW, KEY, mockGateway, testContext } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0);
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };

function log(pages: Record<string, unknown>[][], options: { ignoresWindow?: boolean } = {}) {
  const gw = mockGateway();
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/logs') })
    .reply((request) => {
      const url = new URL(String(request.path), GW);
      const page = Number(url.searchParams.get('page') ?? '1');
      const start = Number(url.searchParams.get('start'));
      const end = Number(url.searchParams.get('end'));
      const items = (pages[page - 1] ?? []).filter((r) => options.ignoresWindow || (Number(r.at) >= start && Number(r.at) < end));
      return { statusCode: 200, data: JSON.stringify({ items, page, total_pages: pages.length }), responseOptions: { headers: { 'content-type': 'application/json' } } };
    })
    .persist();
  return gw;
}

describe('spendSince', () => {
  it('adds up the cost of every entry since the instant, on every page, by the entries\' own time', async () => {
    const t = NOW / 1000;
    const gw = log(
      [
        [{ uuid: 'a', at: t - 100, charge: '0.10000000' }, { uuid: 'b', at: t - 7200, charge: '5.00000000' }],
        [{ uuid: 'c', at: t - 50, charge: '0.25000000' }],
      ],
      { ignoresWindow: true },
    );
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const spent = await spendSince(ctx, t - 3600);
    // b is before the session: a gateway that ignores the window does not make it the session's.
    expect(spent.spent.toFixed()).toBe('0.35');
    expect(spent.calls).toBe(2);
    expect(spent.complete).toBe(true);
  });

  it('refuses a log whose entries hold no amount it can read (never ¥0)', async () => {
    const t = NOW / 1000;
    const gw = log([[{ uuid: 'a', at: t - 10, cost: 0.5 }]]);
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    await expect(spendSince(ctx, t - 3600)).rejects.toThrow(/hold no decimal amount/);
  });
});

describe('CallFollower', () => {
  it('returns each call once, oldest first, however the polls overlap', async () => {
    let now = NOW;
    const t = () => now / 1000;
    const entries: Record<string, unknown>[] = [];
    const gw = mockGateway();
    gw.pool
      .intercept({ path: (p) => p.startsWith('/v1/open/logs') })
      .reply(() => ({ statusCode: 200, data: JSON.stringify({ data: entries.filter((e) => Number(e.ts) <= now).slice().reverse() }), responseOptions: { headers: { 'content-type': 'application/json' } } }))
      .persist();
    const { ctx } = testContext({ transport: gw.transport, env, now: () => now });
    const follower = new CallFollower(t() - 60);
    const seen: string[] = [];
    for (let round = 0; round < 6; round++) {
      entries.push({ rid: `r${round}a`, ts: now - 1000, fee: '0.01000000' }, { rid: `r${round}b`, ts: now, fee: '0.02000000' });
      const landed = await follower.poll(ctx);
      seen.push(...landed.calls.map((c) => String(c.rid)));
      now += 5000;
    }
    expect(seen).toEqual(entries.filter((e) => Number(e.ts) >= NOW - 60_000).map((e) => String(e.rid)));
  });
});

describe('spendSince against a rate limit that holds', () => {
  it('keeps what it read and says the sum is a floor (never a complete figure)', async () => {
    const t = NOW / 1000;
    const gw = mockGateway();
    gw.pool
      .intercept({ path: (p) => p.startsWith('/v1/open/logs') })
      .reply((request) => {
        const url = new URL(String(request.path), GW);
        if (url.searchParams.get('cursor') === '2') return { statusCode: 429, data: JSON.stringify({ error: { message: 'slow down' } }), responseOptions: { headers: { 'content-type': 'application/json', 'x-ratelimit-remaining': '0', 'retry-after': '1' } } };
        return { statusCode: 200, data: JSON.stringify({ data: [{ id: 'a', created_at: t - 10, cost: '0.50000000' }], next_cursor: '2' }), responseOptions: { headers: { 'content-type': 'application/json' } } };
      })
      .persist();
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const spent = await spendSince(ctx, t - 3600);
    expect(spent.spent.toFixed()).toBe('0.5');
    expect(spent.complete).toBe(false);
    const { formatStatusline } = await import('../../src/statusline/cache.js');
    const figures = { base_url: GW, profile: 'default', credential_id: 'x', fetched_at: new Date(NOW).toISOString(), currency: 'CNY', balance: '10', today: null, limit: null, runway_days: null };
    expect(formatStatusline(figures, '{session}', false, { spend: { spent: spent.spent.toFixed(), currency: 'CNY', complete: spent.complete } })).toBe('session ≥¥0.50 (key)');
  });
});
