import { describe, expect, it } from 'vitest';
import { GW, KEY, freshState, mockGateway, runCommand } from '../helpers.js';

const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };
const json = { headers: { 'content-type': 'application/json' } };

const withKey = `{
  "currency": "CNY",
  "balance": "1234.50000000",
  "lifetime_spend": "98765.43210000",
  "plan": {"has_active_plan": false},
  "api_key": {"name": "ci", "prefix": "gw-sk-ci", "daily_cost_limit": "20.00000000", "daily_cost_used": "15.50000000"},
  "region": "cn-east"
}`;

function gatewayAnswering(status: number, body: string) {
  const gw = mockGateway();
  gw.pool.intercept({ path: '/v1/open/balance' }).reply(status, body, json);
  return gw;
}

describe('tally balance', () => {
  it('prints the service values exactly as sent with --json, unknown fields kept', async () => {
    const gw = gatewayAnswering(200, withKey);
    const result = await runCommand(['balance', '--json'], { transport: gw.transport, env });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`{
  "currency": "CNY",
  "balance": "1234.50000000",
  "lifetime_spend": "98765.43210000",
  "plan": {
    "has_active_plan": false
  },
  "api_key": {
    "name": "ci",
    "prefix": "gw-sk-ci",
    "daily_cost_limit": "20.00000000",
    "daily_cost_used": "15.50000000"
  },
  "region": "cn-east"
}
`);
    gw.done();
  });

  it("remembers the key's quota five minutes, as every view does (the token record's strict limit): asked again past them", async () => {
    const shared = { ...env, TALLY_CONFIG_DIR: freshState() };
    const record = (available: string) => `{"object":"token_usage","name":"ci","total_granted":50,"total_used":${50 - Number(available)},"total_available":${available},"unlimited_quota":false,"currency":"CNY"}`;
    const at = Date.UTC(2026, 10, 28, 12);
    const run = async (argv: string[], now: number, quota?: string) => {
      const gw = mockGateway();
      gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, withKey, json);
      if (quota !== undefined) gw.pool.intercept({ path: '/api/usage/token/' }).reply(200, record(quota), json);
      const result = await runCommand(argv, { transport: gw.transport, env: shared, now: () => now });
      gw.done();
      return result;
    };
    expect(JSON.parse((await run(['balance', '--json'], at, '40')).stdout).key_quota.remaining).toBe('40');
    // A minute on: the gateway is asked for the balance only (a token stub left unasked would fail the test).
    expect(JSON.parse((await run(['balance', '--json'], at + 60_000)).stdout).key_quota.remaining).toBe('40');
    // Past five minutes: asked again, and the new figure shown.
    expect(JSON.parse((await run(['balance', '--json'], at + 5 * 60_000 + 1, '30')).stdout).key_quota.remaining).toBe('30');
    // A clock set back never serves a reading from its future.
    expect(JSON.parse((await run(['balance', '--json'], at - 60_000, '35')).stdout).key_quota.remaining).toBe('35');
  });

  it('shows a panel for a pipe (ASCII bar, no colour)', async () => {
    const gw = gatewayAnswering(200, withKey);
    const result = await runCommand(['balance'], { transport: gw.transport, env });
    expect(result.stdout).toBe(
      [
        'Balance          ¥1,234.50',
        'Lifetime spend   ¥98,765.43',
        'Plan             no active plan (billing from balance)',
        'Key              ci (gw-sk-ci…)',
        'Daily limit      ¥20.00',
        'Used today       ¥15.50  ################....  77.5%',
        'Remaining today  ¥4.50',
        'Currency         CNY',
        '',
      ].join('\n'),
    );
  });

  it('shows a panel for a terminal (Unicode bar)', async () => {
    const gw = gatewayAnswering(200, withKey);
    const result = await runCommand(['balance'], { transport: gw.transport, env, tty: true });
    expect(result.stdout).toContain('Used today       ¥15.50  ████████████████░░░░  77.5%\n');
  });

  it('colours the bar by how much of the limit is used, only when colour is on', async () => {
    const result = await runCommand(['balance'], { transport: gatewayAnswering(200, withKey).transport, env, tty: true, color: true });
    // 77.5% of the limit: a yellow bar, labels dimmed.
    expect(result.stdout).toContain('\u001b[33m████████████████\u001b[39m\u001b[2m░░░░\u001b[22m');
    expect(result.stdout).toContain('\u001b[2mBalance\u001b[22m          ¥1,234.50');
  });

  it('says a device-token sign-in has no key-level limit, and shows plan fields it does not know', async () => {
    const gw = gatewayAnswering(200, '{"currency":"CNY","balance":"5.00000000","lifetime_spend":"0.00000000","plan":{"has_active_plan":true,"tier":"pro","quota_left":"12.5"},"api_key":null}');
    const result = await runCommand(['balance'], { transport: gw.transport, env });
    expect(result.stdout).toBe(
      [
        'Balance         ¥5.00',
        'Lifetime spend  ¥0.00',
        'Plan            active',
        '  tier          pro',
        '  quota_left    12.5',
        'Key             signed in with a device token, no key-level limit',
        'Currency        CNY',
        '',
      ].join('\n'),
    );
    const asJson = await runCommand(['balance', '--json'], { transport: gatewayAnswering(200, '{"currency":"CNY","balance":"5","lifetime_spend":"0","plan":{"has_active_plan":false},"api_key":null}').transport, env });
    expect(JSON.parse(asJson.stdout).api_key).toBeNull();
  });

  it.each([
    [401, '{"error":{"type":"authentication_error","message":"invalid key"}}', 3, 'tally: gw.test rejected the credential (HTTP 401): invalid key\nCheck which credential is in use with `tally auth status`.\n'],
    [500, '{"error":"ledger offline"}', 1, 'tally: gw.test answered HTTP 500 for /v1/open/balance: ledger offline\n'],
    [200, '{"currency":"CNY","balance":12.5,"lifetime_spend":"1","plan":{"has_active_plan":false},"api_key":null}', 1, 'tally: unexpected response from gw.test: balance is not a decimal string (got 12.5)\n'],
    [200, '{"currency":"CNY","balance":"12.3.4","lifetime_spend":"1","plan":{"has_active_plan":false},"api_key":null}', 1, 'tally: unexpected response from gw.test: balance is not a decimal string (got "12.3.4")\n'],
    [200, '[1,2,3]', 1, 'tally: unexpected response from gw.test: balance response is not a JSON object\n'],
    [200, '<html>oops</html>', 1, 'tally: unexpected response from gw.test: not JSON (<html>oops</html>)\n'],
  ])('HTTP %i %s exits %i', async (status, body, code, stderr) => {
    const result = await runCommand(['balance'], { transport: gatewayAnswering(status, body).transport, env });
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(stderr);
  });

  it('reports errors as JSON on stderr with --json', async () => {
    const result = await runCommand(['balance', '--json'], { transport: gatewayAnswering(401, '{"error":{"message":"invalid key"}}').transport, env });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({ error: { kind: 'auth', message: 'gw.test rejected the credential (HTTP 401): invalid key (Check which credential is in use with `tally auth status`.)', status: 401 } });
  });

  it('refuses --csv, which is for tabular commands, before asking the service anything', async () => {
    const gw = mockGateway();
    const result = await runCommand(['balance', '--csv'], { transport: gw.transport, env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('tally: --csv is for the commands that list records (usage, logs, models, pricing, export, audit); balance prints no table of records\n');
  });

  it('exits 2 without a base URL and 3 without a credential', async () => {
    const noUrl = await runCommand(['balance'], { env: { TALLY_API_KEY: KEY } });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('no base URL for profile "default"');
    const gw = mockGateway();
    const noKey = await runCommand(['balance'], { transport: gw.transport, env: { TALLY_BASE_URL: GW } });
    expect(noKey.code).toBe(3);
    expect(noKey.stderr).toBe('tally: no credential: run `tally login` (or `tally login --with-token` in scripts), or set TALLY_API_KEY\n');
  });
});
