// The compatible family as real open-source gateways send it (../shared/spec/real-gateways.md):
// success flags of every kind, raw quota units with no currency, the unlimited marker, a missing
// token endpoint. Each is read as the gateway means it, never mis-labelled.
import { describe, expect, it } from 'vitest';
import { GW, KEY, mockGateway, runCommand } from '../helpers.js';

const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TZ: 'UTC' };
const json = { headers: { 'content-type': 'application/json' } };

const subscription = (limit: string) => `{"object": "billing_subscription", "has_payment_method": true, "soft_limit_usd": ${limit}, "hard_limit_usd": ${limit}, "system_hard_limit_usd": ${limit}, "access_until": 0}`;
const usage = '{"object": "list", "total_usage": 247.53}';
const rawToken = '{"object": "token_usage", "name": "team", "total_granted": 100000000, "total_used": 22365000, "total_available": 77635000, "unlimited_quota": false, "model_limits": {"gpt-5": true, "glm-4.6": true}, "model_limits_enabled": true, "expires_at": 0}';

function gateway(bodies: { subscription?: string; usage?: string; token?: string | { status: number; body: string } }) {
  const gw = mockGateway();
  gw.pool.intercept({ path: '/dashboard/billing/subscription' }).reply(200, bodies.subscription ?? subscription('6.00'), json);
  gw.pool.intercept({ path: '/dashboard/billing/usage' }).reply(200, bodies.usage ?? usage, json);
  const token = bodies.token ?? `{"code": true, "message": "ok", "data": ${rawToken}}`;
  if (typeof token === 'string') gw.pool.intercept({ path: '/api/usage/token/' }).reply(200, token, json);
  else gw.pool.intercept({ path: '/api/usage/token/' }).reply(token.status, token.body, json);
  return gw;
}

describe('billing against real gateways of the compatible family', () => {
  for (const [flag, wrapper] of [
    ['code true', `{"code": true, "message": "ok", "data": ${rawToken}}`],
    ['code 0', `{"code": 0, "message": "", "data": ${rawToken}}`],
    ['code 200', `{"code": 200, "msg": "ok", "data": ${rawToken}}`],
    ['code "success"', `{"code": "success", "data": ${rawToken}}`],
    ['success true', `{"success": true, "message": "", "data": ${rawToken}}`],
  ] as const) {
    it(`reads a success flag of ${flag} as success`, async () => {
      const result = await runCommand(['billing', '--json'], { transport: gateway({ token: wrapper }).transport, env });
      expect(result.code).toBe(0);
      const out = JSON.parse(result.stdout);
      expect(out.missing).toEqual([]);
      expect(out.token).toEqual(JSON.parse(wrapper));
    });
  }

  for (const [flag, wrapper, said] of [
    ['code false', '{"code": false, "message": "token expired", "data": null}', ' (code false): token expired'],
    ['code 1', '{"code": 1, "message": "no such token", "data": {"total_granted": 0}}', ' (code 1): no such token'],
    ['success false', '{"success": false, "message": "invalid token"}', ': invalid token'],
    ['code false, no data', '{"code": false, "message": "token expired"}', ' (code false): token expired'],
    ['code "error", no data', '{"code": "error", "message": "lookup failed"}', ' (code "error"): lookup failed'],
    ['code -1, no data', '{"code": -1, "msg": "busy"}', ' (code -1): busy'],
  ] as const) {
    const said_ = flag === 'success false' ? `gw.test reported success: false for /api/usage/token/${said}` : `gw.test reported an error for /api/usage/token/${said}`;
    it(`reads a flag of ${flag} as the service's error, never as figures`, async () => {
      const result = await runCommand(['billing', '--json'], { transport: gateway({ token: wrapper }).transport, env });
      const out = JSON.parse(result.stdout);
      expect(out.token).toBeNull();
      expect(out.missing[0].message).toBe(said_);
    });
  }

  it('labels a token record that states no unit as units not stated, never as yuan', async () => {
    const result = await runCommand(['billing'], { transport: gateway({}).transport, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('  total_granted            100,000,000.00 units (unit not stated)\n');
    expect(result.stdout).toContain('  total_available          77,635,000.00 units (unit not stated)\n');
    expect(result.stdout).toContain('  unit                     not stated (raw quota units: not comparable with the yuan figures above)\n');
    expect(result.stdout).toContain('  model limits             gpt-5, glm-4.6\n');
    expect(result.stdout).not.toMatch(/¥[\d,]*100,000,000/);
    const out = JSON.parse((await runCommand(['billing', '--json'], { transport: gateway({}).transport, env })).stdout);
    expect(out.token_unit).toBeNull();
  });

  it('shows the unlimited marker as unlimited, never as an amount or a remaining', async () => {
    const unlimited = '{"object": "token_usage", "name": "open", "total_granted": 0, "total_used": 1234, "total_available": -1234, "unlimited_quota": true, "model_limits": {}, "expires_at": -1}';
    const gw = gateway({ subscription: subscription('100000000'), token: `{"code": true, "message": "ok", "data": ${unlimited}}` });
    const result = await runCommand(['billing'], { transport: gw.transport, env });
    expect(result.stdout).toContain('Soft limit                 unlimited (soft_limit_usd holds the 100000000 marker, not an amount)\n');
    expect(result.stdout).toContain('Remaining                  unlimited\n');
    expect(result.stdout).not.toContain('100,000,000');
    expect(result.stdout).not.toContain('99,999,997');
    const again = gateway({ subscription: subscription('100000000'), token: `{"code": true, "message": "ok", "data": ${unlimited}}` });
    const out = JSON.parse((await runCommand(['billing', '--json'], { transport: again.transport, env })).stdout);
    expect(out.remaining).toBeNull();
    expect(out.unlimited).toBe(true);
    expect(out.subscription.soft_limit_usd).toBe(100000000);
  });

  it('shows what was read when the token endpoint does not exist (404), and names it', async () => {
    const gw = gateway({ token: { status: 404, body: '{"error": {"message": "Invalid URL (GET /api/usage/token/)", "type": "invalid_request_error", "param": "", "code": ""}}' } });
    const result = await runCommand(['billing'], { transport: gw.transport, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Soft limit                 ¥6.00  (soft_limit_usd: yuan, despite the name)\n');
    expect(result.stdout).toContain('Remaining                  ¥3.52  (soft_limit_usd − total_usage / 100)\n');
    expect(result.stdout).toContain('  record                   not read (/api/usage/token/: gw.test answered HTTP 404 for /api/usage/token/: Invalid URL (GET /api/usage/token/))\n');
    expect(result.stderr).toBe('warning: /api/usage/token/ was not read: gw.test answered HTTP 404 for /api/usage/token/: Invalid URL (GET /api/usage/token/)\n');
  });
});

describe('a base URL written with /v1, as chat clients ask for it', () => {
  it('says what was asked and hints at the base URL without /v1', async () => {
    // The key's quota may not be asked before the balance's answer ends the run: its stub is loose.
    const gw = mockGateway(GW, { loose: true });
    gw.pool.intercept({ path: '/v1/v1/open/balance' }).reply(404, '{"error": {"message": "Invalid URL (GET /v1/v1/open/balance)"}}', json);
    gw.pool.intercept({ path: '/v1/api/usage/token/' }).reply(404, '{}', json);
    const result = await runCommand(['balance'], { transport: gw.transport, env: { ...env, TALLY_BASE_URL: `${GW}/v1` } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('gw.test answered HTTP 404 for /v1/v1/open/balance: Invalid URL (GET /v1/v1/open/balance)');
    expect(result.stderr).toContain('The base URL ends in /v1, so tally asked /v1/v1/open/balance; the base URL is the gateway\'s root: try https://gw.test');
  });
});

describe("the token endpoint's strict rate limit", () => {
  const balance = '{"currency": "CNY", "balance": "150.00000000", "lifetime_spend": "10.00000000", "plan": {"has_active_plan": false}, "api_key": {"name": "ci", "prefix": "gw-sk", "daily_cost_limit": "20.00000000", "daily_cost_used": "5.00000000"}}';

  it('a 429 with no body and no headers there costs the balance nothing: no quota row, exit 0, the figures shown', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, balance, json);
    gw.pool.intercept({ path: '/api/usage/token/' }).reply(429, '').persist();
    const result = await runCommand(['balance'], { transport: gw.transport, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Balance +¥150\.00$/m);
    expect(result.stdout).not.toContain("Key's quota");
    const asJson = await runCommand(['balance', '--json'], { transport: (() => {
      const again = mockGateway();
      again.pool.intercept({ path: '/v1/open/balance' }).reply(200, balance, json);
      again.pool.intercept({ path: '/api/usage/token/' }).reply(429, '').persist();
      return again.transport;
    })(), env });
    expect(JSON.parse(asJson.stdout).key_quota).toBeUndefined();
  });

  it('billing shows the other records when the token endpoint is rate limited, and names it', async () => {
    const gw = gateway({ token: { status: 429, body: '' } });
    const result = await runCommand(['billing', '--json'], { transport: gw.transport, env });
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.token).toBeNull();
    expect(doc.remaining).toBe('3.52470000');
    expect(doc.missing[0]).toMatchObject({ endpoint: '/api/usage/token/', kind: 'rate_limit', status: 429 });
    // Asked once: a retry within seconds never reopens a window of 20 minutes, it only spends it.
    expect(doc.missing[0].message).toBe('rate limited by gw.test for /api/usage/token/ (not retried: its limit is strict)');
  });
});

describe('a price catalog of the compatible family (no service_pricing)', () => {
  const record = (name: string, extra = '') => `{"model_name": "${name}", "quota_type": 0, "model_ratio": 1.5, "completion_ratio": 4, "vendor_id": 3, "owner_by": "", "enable_groups": ["default"], "supported_endpoint_types": ["openai"]${extra}}`;

  it('says the catalog has no absolute prices, never names a source that is not there; the version may sit on the first record', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/api/pricing' }).reply(200, `{"success": true, "data": [${record('gpt-5', ', "pricing_version": "v-77"')}, ${record('glm-4.6')}]}`, json);
    const result = await runCommand(['pricing', '--wide'], { transport: gw.transport, env, width: 250 });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('catalog v-77');
    expect(result.stdout).toContain('this catalog states no absolute prices (no service_pricing, only ratios, which are not prices): none are shown');
    expect(result.stdout).not.toContain('prices from service_pricing');
  });

  it('counts the models without service_pricing in a catalog that has some', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/api/pricing' }).reply(200, `{"success": true, "pricing_version": "v1", "data": [${record('gpt-5', ', "service_pricing": {"input_unit_price": "0.00875000", "output_unit_price": "0.07000000", "cache_read_input_price": "0.00087500"}')}, ${record('glm-4.6')}]}`, json);
    const result = await runCommand(['pricing', '--wide'], { transport: gw.transport, env, width: 250 });
    expect(result.stdout).toMatch(/prices from service_pricing, yuan per 1M tokens; other prices \(per call, second, image\) as the catalog names them; no absolute prices for 1 model: none shown there/);
  });

  it('names vendors by the catalog\'s vendors list where records give only a numeric vendor_id (--vendor filters by it); the records stay as sent', async () => {
    const byId = (name: string, id: number) => record(name).replace('"vendor_id": 3', `"vendor_id": ${id}`);
    const catalog = `{"success": true, "vendors": [{"id": 1, "name": "OpenAI", "icon": "x"}, {"id": 2, "name": "Zhipu"}], "data": [${byId('gpt-5', 1)}, ${byId('glm-4.6', 2)}]}`;
    const gw = () => {
      const g = mockGateway();
      g.pool.intercept({ path: '/api/pricing' }).reply(200, catalog, json);
      return g;
    };
    const only = await runCommand(['pricing', '--vendor', 'openai', '--json'], { transport: gw().transport, env });
    expect(only.code, only.stderr).toBe(0);
    const doc = JSON.parse(only.stdout);
    expect(doc.models.map((m: { model_name: string }) => m.model_name)).toEqual(['gpt-5']);
    expect(doc.models[0].vendor_id).toBe(1);
    expect(doc.models[0]).not.toHaveProperty('vendor');
    const none = await runCommand(['pricing', '--vendor', 'Nope'], { transport: gw().transport, env, width: 300 });
    expect(none.stdout).toMatch(/the catalog has vendors: OpenAI, Zhipu/);
  });
});
