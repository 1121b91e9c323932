// The usage series (figures/usage-series.ts), against a mock gateway whose field names are its
// own: buckets on the grid the gateway's days show (+08:00 here: learned and remembered), days
// without calls filled with zeros, a window longer than 92 days asked in parts and its totals
// added exactly, weeks rolled up from days, and buckets whose amounts are JSON numbers refused.
import { describe, expect, it } from 'vitest';
import { loadUsageSeries } from '../../src/figures/usage-series.js';
import { readLearnedGrid } from '../../src/settings/grid-cache.js';
import { GW, KEY, mockGateway, tempDir, testContext } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0);
const DAY = 86_400;
const json = { headers: { 'content-type': 'application/json' } };
/** A +08:00 day's start (16:00 UTC the day before). */
const day8 = (y: number, m: number, d: number) => Date.UTC(y, m, d) / 1000 - 8 * 3600;

/** A gateway with ¥1.25 and 2 calls on every +08:00 day whose number is even; what it was asked. */
function gateway() {
  const gw = mockGateway();
  const asked: { start: number; end: number }[] = [];
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/usage?') })
    .reply((request) => {
      const url = new URL(String(request.path), GW);
      const [start, end] = [Number(url.searchParams.get('start')), Number(url.searchParams.get('end'))];
      asked.push({ start, end });
      const buckets = [];
      for (let t = Math.ceil((start + 8 * 3600) / DAY) * DAY - 8 * 3600; t < end; t += DAY) {
        if (new Date((t + 8 * 3600) * 1000).getUTCDate() % 2 === 0) buckets.push({ ts: t, calls: 2, yuan: '1.25' });
      }
      const totals = { calls: buckets.length * 2, yuan: (buckets.length * 1.25).toFixed(2) };
      return { statusCode: 200, data: JSON.stringify({ buckets, totals }), responseOptions: json };
    })
    .persist();
  return { gw, asked };
}

describe('the usage series', () => {
  it('lays days on the grid the gateway\'s buckets show, fills the days without calls (in the gateway\'s places), and remembers the grid', async () => {
    const state = tempDir();
    try {
      const { gw } = gateway();
      const { ctx } = testContext({ transport: gw.transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TALLY_CONFIG_DIR: state.path }, now: () => NOW });
      const series = await loadUsageSeries(ctx, { bucket: 'day', since: '2026-11-20', until: '2026-11-24' });
      expect(series.dayGrid).toEqual({ offset: 28_800, source: 'inferred' });
      expect(series.slots).toEqual([20, 21, 22, 23].map((d) => day8(2026, 10, d)));
      expect(series.buckets.map((b) => b.yuan)).toEqual(['1.25', '0.00', '1.25', '0.00']);
      expect(series.filled).toBe(2);
      expect(readLearnedGrid(state.path, new URL(`${GW}/`))).toBe(28_800);
    } finally {
      state.remove();
    }
  });

  it('asks a window longer than 92 days in parts, and adds their totals exactly', async () => {
    const { gw, asked } = gateway();
    const { ctx } = testContext({ transport: gw.transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY }, now: () => NOW });
    const series = await loadUsageSeries(ctx, { bucket: 'day', since: '200d', utcOffset: '+08:00' });
    expect(series.requests).toBe(3);
    expect(asked.every((w) => w.end - w.start <= 92 * DAY)).toBe(true);
    const even = series.buckets.filter((b) => b.yuan === '1.25').length;
    expect(String(series.totals.yuan)).toBe((even * 1.25).toFixed(2));
    expect(String(series.totals.calls)).toBe(String(even * 2));
  });

  it('rolls weeks up from days (Monday to Sunday on the grid)', async () => {
    const { gw } = gateway();
    const { ctx } = testContext({ transport: gw.transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY }, now: () => NOW });
    const series = await loadUsageSeries(ctx, { bucket: 'week', since: '2026-11-02', until: '2026-11-16', utcOffset: '+08:00' });
    // 2-8 Nov: the 2nd, 4th, 6th and 8th; 9-15 Nov: the 10th, 12th and 14th.
    expect(series.slots).toEqual([day8(2026, 10, 2), day8(2026, 10, 9)]);
    expect(series.buckets.map((b) => [String(b.yuan), String(b.calls)])).toEqual([['5.00', '8'], ['3.75', '6']]);
  });

  it('buckets whose amounts are JSON numbers are not read as money', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/usage?') }).reply(200, JSON.stringify({ buckets: [{ ts: day8(2026, 10, 20), calls: 2, yuan: 1.25 }], totals: { calls: 2, yuan: 1.25 } }), json);
    const { ctx } = testContext({ transport: gw.transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY }, now: () => NOW });
    const series = await loadUsageSeries(ctx, { bucket: 'day', since: '2026-11-20', until: '2026-11-21', utcOffset: '+08:00' });
    expect(series.shape?.moneyMetric).toBeUndefined();
  });
});
