// The digest as a figure (figures/report.ts), against a mock gateway whose every window is added
// up from one table of days: a custom week against the week before it, the account's spend and
// the key's per model (a model new this week), the days of the period, and the anomalies dating
// the new model to its first day; literal amounts throughout.
import { describe, expect, it } from 'vitest';
import { loadReport } from '../../src/figures/report.js';
import { GW, KEY, mockGateway, testContext } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0);
const DAY = 86_400;
const json = { headers: { 'content-type': 'application/json' } };
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };
const utc = (d: number) => Date.UTC(2026, 10, d) / 1000;

/** What each model spent on a UTC day of November: glm-4.6 ¥2 every day; kimi-k2 ¥3 a day from the 20th to the 22nd. */
function spentOn(day: number): Record<string, number> {
  const d = new Date(day * 1000).getUTCDate();
  const month = new Date(day * 1000).getUTCMonth();
  return { 'glm-4.6': 2, ...(month === 10 && d >= 20 && d <= 22 ? { 'kimi-k2': 3 } : {}) };
}

function gateway() {
  const gw = mockGateway();
  const days = (start: number, end: number) => Array.from({ length: Math.max(0, Math.ceil((Math.min(end, NOW / 1000) - start) / DAY)) }, (_, i) => start + i * DAY);
  const query = (path: string) => new URL(path, GW).searchParams;
  gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, '{"currency":"CNY","balance":"500.00","lifetime_spend":"900.00","plan":{"has_active_plan":false},"api_key":{"name":"ci","prefix":"sk-ci","daily_cost_limit":"50.00","daily_cost_used":"2.00"}}', json);
  gw.pool.intercept({ path: '/api/usage/token/' }).reply(404, '{}', json);
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/usage?') })
    .reply((request) => {
      const q = query(String(request.path));
      const buckets = days(Math.ceil(Number(q.get('start')) / DAY) * DAY, Number(q.get('end'))).map((t) => ({ day: t, spend: `${Object.values(spentOn(t)).reduce((a, b) => a + b, 0)}.00` }));
      return { statusCode: 200, data: JSON.stringify({ scope: 'account', buckets, totals: {} }), responseOptions: json };
    })
    .persist();
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/usage/models?') })
    .reply((request) => {
      const q = query(String(request.path));
      const sums = new Map<string, number>();
      for (const t of days(Number(q.get('start')), Number(q.get('end')))) for (const [m, v] of Object.entries(spentOn(t))) sums.set(m, (sums.get(m) ?? 0) + v);
      return { statusCode: 200, data: JSON.stringify({ scope: 'key', per_model: [...sums].map(([model, v]) => ({ model, prompt_tokens: 1000, completion_tokens: 100, cost: `${v}.00` })) }), responseOptions: json };
    })
    .persist();
  return gw;
}

describe('the report', () => {
  it('a week against the one before: the spend, the models (one new), the days, and the new model dated to its first day', async () => {
    const { ctx } = testContext({ transport: gateway().transport, env, now: () => NOW });
    const report = await loadReport(ctx, { since: '2026-11-16', until: '2026-11-23', utcOffset: '+00:00' });
    expect({ kind: report.kind, window: report.window, previous: report.previous, complete: report.complete }).toEqual({ kind: 'custom', window: { start: utc(16), end: utc(23), final: true }, previous: { start: utc(9), end: utc(16), final: true }, complete: true });
    // The account: 7 x ¥2 the week before; 7 x ¥2 + 3 x ¥3 this week.
    expect([report.spend.current.toFixed(), report.spend.previous.toFixed(), report.spend.change.toFixed()]).toEqual(['23', '14', '9']);
    expect(report.models.map((m) => [m.model, m.current.toFixed(), m.previous.toFixed(), m.status ?? ''])).toEqual([
      ['kimi-k2', '9', '0', 'new'],
      ['glm-4.6', '14', '14', ''],
    ]);
    expect(report.daily.map((d) => d.amount.toFixed())).toEqual(['2', '2', '2', '2', '5', '5', '5']);
    const kimi = report.anomalies.findings.find((f) => f.kind === 'new_model' && f.model === 'kimi-k2');
    expect(kimi && { start: kimi.start, amount: kimi.amount.toFixed() }).toEqual({ start: utc(20), amount: '9' });
  });
});
