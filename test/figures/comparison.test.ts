// A window against the period before it (figures/comparison.ts), literal amounts: the totals of
// both windows from one request for their days (cut on the grid), the change and its share. Per
// model, to the digit under another naming: test/commands/analyst-naming.test.ts.
import { describe, expect, it } from 'vitest';
import { GW, KEY, mockGateway, runCommand } from '../helpers.js';

const json = { headers: { 'content-type': 'application/json' } };
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TZ: 'UTC' };
const D = 86_400;
const DAY = (d: number) => Date.UTC(2026, 10, d) / 1000;
const NOW = () => Date.UTC(2026, 10, 22, 12);

describe('usage --compare previous', () => {
  it('the two weeks from one request for their 14 days: 7 against 10.5, +3.5, +50.00%', async () => {
    const gw = mockGateway();
    let asked = 0;
    const buckets = Array.from({ length: 14 }, (_, i) => `{"t": ${DAY(7) + i * D}, "calls": 1, "spent": "${i < 7 ? '1.00000000' : '1.50000000'}"}`).join(',');
    // Both weeks' days: one request, for the 14 of them (no other stub: a second request would fail).
    gw.pool
      .intercept({ path: `/v1/open/usage?bucket=day&start=${DAY(7)}&end=${DAY(21)}` })
      .reply(() => {
        asked++;
        return { statusCode: 200, data: `{"buckets": [${buckets}], "totals": {"calls": 14, "spent": "17.50000000"}}`, responseOptions: json };
      });
    const out = await runCommand(['usage', '--since', '2026-11-14', '--until', '2026-11-21', '--compare', 'previous', '--utc-offset', '+00:00', '--json'], { transport: gw.transport, env, now: NOW });
    expect(out.code, out.stderr).toBe(0);
    const doc = JSON.parse(out.stdout);
    expect(asked).toBe(1);
    expect({ current: [doc.current.start, doc.current.end], previous: [doc.previous.start, doc.previous.end], totals: doc.totals }).toEqual({
      current: [DAY(14), DAY(21)],
      previous: [DAY(7), DAY(14)],
      totals: { current: '10.5', previous: '7', change: '3.5', change_percent: '50.00' },
    });
  });
});
