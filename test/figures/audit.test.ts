// The audit as a figure (figures/audit.ts), against a mock gateway with literal prices and
// charges: per model and day, the charge against what the catalog's prices give for its tokens
// (a match within the tolerance, above it, a model the catalog does not list unknown); per call
// from the log, a failed call charged and a call with tokens and no charge found, under field
// names the gateway chose.
import { describe, expect, it } from 'vitest';
import { loadAudit, unexplained } from '../../src/figures/audit.js';
import { DEFAULT_TOLERANCE } from '../../src/domain/audit.js';
import { Decimal } from '../../src/domain/money.js';
import { GW, KEY, mockGateway, testContext } from '../helpers.js';
import { catalogBody, catalogRow } from '../support/catalog.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0);
const json = { headers: { 'content-type': 'application/json' } };
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };
const utc = (d: number, h = 0) => Date.UTC(2026, 10, d, h) / 1000;

function gateway(log: Record<string, unknown>[] | 'none') {
  const gw = mockGateway();
  gw.pool.intercept({ path: '/api/pricing' }).reply(200, catalogBody('v3', [catalogRow('glm-4.6', { input: '0.002', output: '0.008' })]), json);
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/usage/models?') })
    .reply((request) => {
      const start = Number(new URL(String(request.path), GW).searchParams.get('start'));
      // The 25th charged as the prices say (10,000 in x 0.002 + 1,000 out x 0.008, per 1,000: 0.028); the 26th charged more.
      const glm = { mdl: 'glm-4.6', input_token_count: 10_000, completion_tokens: 1_000, billed: start === utc(25) ? '0.028' : '0.05' };
      return { statusCode: 200, data: JSON.stringify({ scope: 'key', rows: [glm, { mdl: 'secret-model', input_token_count: 5, completion_tokens: 5, billed: '9.00' }] }), responseOptions: json };
    })
    .persist();
  if (log === 'none') gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/logs') }).reply(404, '{"error":"not found"}', json);
  else gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/logs') }).reply(200, JSON.stringify({ entries: log }), json);
  return gw;
}

describe('the audit', () => {
  it('per model and day: a match, a charge above the prices, and a model the catalog does not list; per call: a failed call charged and one not charged', async () => {
    const gw = gateway([
      { id: 'c1', created: utc(25, 10), model: 'glm-4.6', input_tokens: 1000, output_tokens: 100, fee: '0.0028', result: 'success' },
      { id: 'c2', created: utc(25, 11), model: 'glm-4.6', input_tokens: 1000, output_tokens: 100, fee: '0.0028', result: 'upstream_error' },
      { id: 'c3', created: utc(26, 12), model: 'glm-4.6', input_tokens: 1000, output_tokens: 100, fee: '0', result: 'success' },
    ]);
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const audit = await loadAudit(ctx, { since: '2026-11-25', until: '2026-11-27', utcOffset: '+00:00', tolerance: DEFAULT_TOLERANCE });
    expect(audit.rows.map((r) => [r.day, r.model, r.charged?.toFixed() ?? null, r.expected.basis === 'unknown' ? r.expected.why : r.expected.amount.toFixed(), r.verdict])).toEqual([
      [utc(25), 'glm-4.6', '0.028', '0.028', 'match'],
      [utc(25), 'secret-model', '9', 'the catalog does not list secret-model', 'unknown'],
      [utc(26), 'glm-4.6', '0.05', '0.028', 'above'],
      [utc(26), 'secret-model', '9', 'the catalog does not list secret-model', 'unknown'],
    ]);
    expect(audit.calls.findings.map((f) => [f.kind, f.id, f.charged.toFixed(), f.expected?.toFixed()])).toEqual([
      ['failed_charged', 'c2', '0.0028', '0.0028'],
      ['not_charged', 'c3', '0', '0.0028'],
    ]);
    expect({ read: audit.calls.read, priced: audit.calls.priced, version: audit.pricingVersion }).toEqual({ read: 3, priced: 2, version: 'v3' });
    // The day charged above the prices and the failed call charged.
    expect(unexplained(audit)).toBe(2);
  });

  it('a gateway without a per-call log: the calls are said not audited, never audited clean', async () => {
    const gw = gateway('none');
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const audit = await loadAudit(ctx, { since: '2026-11-25', until: '2026-11-26', utcOffset: '+00:00', tolerance: DEFAULT_TOLERANCE });
    expect(audit.calls).toEqual({ read: 0, complete: false, priced: 0, findings: [], unread: 'the gateway has no per-call log' });
  });
});

describe("the audit's unknowns and its count", () => {
  it("reads a day whose records leave a charge unreadable as unknown, never as charged 0 below the prices", async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/api/pricing' }).reply(200, catalogBody('v3', [catalogRow('glm-4.6', { input: '0.002', output: '0.008' })]), json);
    gw.pool
      .intercept({ path: (p) => p.startsWith('/v1/open/usage/models?') })
      // Two records of one model: one charged 0.028, one whose charge is null.
      .reply(200, JSON.stringify({ scope: 'key', data: [{ model: 'glm-4.6', prompt: 10_000, completion: 1_000, cost: '0.028' }, { model: 'glm-4.6', prompt: 10_000, completion: 1_000, cost: null }] }), json)
      .persist();
    gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/logs') }).reply(404, '{"error":"not found"}', json);
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const audit = await loadAudit(ctx, { since: '2026-11-25', until: '2026-11-26', utcOffset: '+00:00', tolerance: DEFAULT_TOLERANCE });
    expect(audit.rows.map((r) => [r.model, r.charged, r.verdict])).toEqual([['glm-4.6', null, 'unknown']]);
    expect(unexplained(audit)).toBe(0);
  });

  it('counts a call charged above the prices and its day once, and a day above that no call explains', () => {
    const day = utc(26);
    const row = (model: string) => ({ day, model, charged: null, expected: { basis: 'tokens' as const, amount: new Decimal(0) }, verdict: 'above' as const });
    const call = (model: string, at: number) => ({ kind: 'above' as const, at, id: null, model, charged: new Decimal(1), expected: null });
    const audit = { offset: 0, rows: [row('glm-4.6'), row('kimi-k2')], calls: { read: 3, complete: true, priced: 3, findings: [call('glm-4.6', day + 100), call('glm-4.6', day + 200)] } };
    // Two calls of glm-4.6 explain its day; kimi-k2's day has no call: 3, not 4.
    expect(unexplained(audit as never)).toBe(3);
  });
});
