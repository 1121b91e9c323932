// The sandbox against the spec: each family's error shapes, its rate limits, its caching, its
// catalog rules, measured with plain HTTP requests (as a third-party client would see them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { Decimal } from '../../src/domain/money.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(Date.UTC(2026, 10, 22, 10)) });
});
afterAll(async () => {
  await sandbox.close();
});

async function get(path: string, key: string | null = sandbox.demoKey) {
  const response = await fetch(`${sandbox.baseUrl}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {}, redirect: 'manual' });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
}

describe('the sandbox is faithful to the spec', () => {
  it.each([
    ['error-200', '/v1/open/balance', 500, { error: 'billing backend unavailable' }],
    ['success-false', '/v1/open/usage', 500, { error: 'pricing catalog is being rebuilt' }],
    ['error-200', '/api/pricing', 200, { success: false, message: 'billing backend unavailable' }],
    ['success-false', '/api/pricing', 200, { success: false, message: 'pricing catalog is being rebuilt' }],
    ['error-200', '/dashboard/billing/usage', 200, { error: { type: 'upstream_error', code: 'billing_unavailable', message: 'billing backend unavailable' } }],
    ['error-200', '/api/usage/token/', 200, { error: { type: 'upstream_error', code: 'billing_unavailable', message: 'billing backend unavailable' } }],
  ] as const)('--fault %s on %s answers in that family\'s own error shape', async (kind, path, status, body) => {
    sandbox.faults.push({ kind, path });
    const answer = await get(path);
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual(body);
  });

  it.each([
    ['/v1/open/usage/models', 120, { error: { type: 'rate_limit_error', message: 'rate limit exceeded' } }],
    ['/v1/open/balance', 120, { error: { type: 'rate_limit_error', message: 'rate limit exceeded' } }],
    ['/v1/models', 240, { error: 'rate limit exceeded', scope: 'user' }],
    ['/alt/v1/models', 240, { error: 'rate limit exceeded', scope: 'user' }],
  ])('--fault rate-limit on %s answers as its family does (limit %i)', async (path, limit, body) => {
    sandbox.faults.push({ kind: 'rate-limit', path });
    const answer = await get(path);
    expect(answer.status).toBe(429);
    expect(answer.headers.get('x-ratelimit-limit')).toBe(String(limit));
    expect(Number(answer.headers.get('x-ratelimit-remaining'))).toBeLessThanOrEqual(0);
    expect(answer.body).toEqual(body);
  });

  it('reports soft_limit_usd as balance plus lifetime spend for every key, a total cost limit or not', async () => {
    for (const key of [sandbox.demoKey, sandbox.limitedKey]) {
      const balance = (await get('/v1/open/balance', key)).body;
      const subscription = await get('/dashboard/billing/subscription', key);
      const soft = /"soft_limit_usd":([\d.]+)/.exec(subscription.text)![1]!;
      expect(new Decimal(soft).eq(new Decimal(balance.balance).plus(balance.lifetime_spend))).toBe(true);
    }
  });

  it('sends X-Cache on every aggregating endpoint, MISS then HIT', async () => {
    for (const path of ['/v1/open/usage?bucket=day&start=1794700000&end=1794900000', '/v1/open/usage/models?start=1794700000&end=1794900000']) {
      expect((await get(path)).headers.get('x-cache')).toBe('MISS');
      expect((await get(path)).headers.get('x-cache')).toBe('HIT');
    }
  });

  it('infers supported_endpoint_types from prices only (catalog rule 3)', async () => {
    const catalog = (await get('/api/pricing', null)).body;
    const types = (name: string) => catalog.data.find((m: { model_name: string }) => m.model_name === name).supported_endpoint_types;
    expect(types('sora-2')).toEqual(['video-generation']);
    expect(types('gpt-image-1')).toEqual(['image-generation']);
    const text = ['openai', 'openai-response', 'openai-response-compact', 'anthropic'];
    for (const model of ['gpt-5', 'gemini-2.5-pro', 'text-embedding-3-small', 'minimax-speech-02', 'qwen-image-edit']) expect(types(model)).toEqual(text);
  });

  it('redirects /api/usage/token to the slashed path, query string and all', async () => {
    const answer = await get('/api/usage/token?probe=1&x=%20y');
    expect(answer.status).toBe(301);
    expect(answer.headers.get('location')).toBe('/api/usage/token/?probe=1&x=%20y');
  });

  it('ends its seeded history at its clock, whatever the real date', async () => {
    const logs = (await get('/v1/open/logs?start=1700000000&end=1900000000&limit=1')).body;
    expect(logs.data[0].created_at).toBeLessThanOrEqual(Date.UTC(2026, 10, 22, 10) / 1000 + 60);
    expect(logs.data[0].created_at).toBeGreaterThan(Date.UTC(2026, 10, 21) / 1000);
  });
});
