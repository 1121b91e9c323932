import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GW, KEY, mockGateway, runCommand, tempDir } from '../helpers.js';

const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TZ: 'UTC' };
const json = { headers: { 'content-type': 'application/json' } };
const dirs: { path: string; remove: () => void }[] = [];
afterEach(() => dirs.splice(0).forEach((d) => d.remove()));

const subscription = '{"object": "billing_subscription", "has_payment_method": true, "soft_limit_usd": 12345678901.234567891, "hard_limit_usd": 12345678901.234567891, "system_hard_limit_usd": 100000000000, "access_until": 0}';
const usage = '{"object": "list", "total_usage": 123456.789}';
const token = '{"object": "token_usage", "name": "ci", "granted_credits": 500.5, "spent": 100.25, "left": 400.25, "expires_at": 0, "currency": "CNY", "model_limits": ["default", "vip"]}';

function billingGateway(bodies: { subscription?: string; usage?: string; token?: string } = {}) {
  const gw = mockGateway();
  gw.pool.intercept({ path: '/dashboard/billing/subscription' }).reply(200, bodies.subscription ?? subscription, json);
  gw.pool.intercept({ path: '/dashboard/billing/usage' }).reply(200, bodies.usage ?? usage, json);
  gw.pool.intercept({ path: '/api/usage/token/' }).reply(200, bodies.token ?? token, json);
  return gw;
}

describe('tally billing', () => {
  it('keeps every field and number exactly, and computes remaining in decimal (20 digits)', async () => {
    const gw = billingGateway();
    const result = await runCommand(['billing', '--json'], { transport: gw.transport, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"soft_limit_usd": 12345678901.234567891');
    expect(result.stdout).toContain('"total_usage": 123456.789');
    const out = JSON.parse(result.stdout);
    expect(Object.keys(out)).toEqual(['currency', 'subscription', 'usage', 'token', 'remaining', 'unlimited', 'token_unit', 'missing']);
    expect(out.token_unit).toBe('CNY');
    expect(out.missing).toEqual([]);
    expect(out.currency).toBe('CNY');
    // 12345678901.234567891 - 123456.789 / 100
    expect(out.remaining).toBe('12345677666.666677891');
    expect(out.token.model_limits).toEqual(['default', 'vip']);
    gw.done();
  });

  it('labels every amount in yuan, never $, as account amounts; an expiry of 0 reads never; explains what usage means', async () => {
    const gw = billingGateway();
    const result = await runCommand(['billing'], { transport: gw.transport, env });
    expect(result.stdout).toBe(
      [
        // The figures align on the decimal point.
        'Soft limit                  ¥12,345,678,901.23  (soft_limit_usd: yuan, despite the name)',
        'Hard limit                  ¥12,345,678,901.23  (hard_limit_usd)',
        'System hard limit          ¥100,000,000,000.00  (system_hard_limit_usd)',
        'Usage                                ¥1,234.57  (total_usage 123456.789 fen, cumulative)',
        'Remaining                   ¥12,345,677,666.67  (soft_limit_usd − total_usage / 100)',
        'Token (/api/usage/token/)',
        '  name                     ci',
        '  granted_credits          ¥500.50',
        '  spent                    ¥100.25',
        '  left                     ¥400.25',
        '  expires_at               never',
        '  unit                     CNY',
        '  model limits             default, vip',
        "Usage is the key's spend when the key carries a total cost limit, the account's otherwise; it is always the all-time total (the service ignores date ranges).",
        '',
      ].join('\n'),
    );
    expect(result.stdout).not.toContain('$');
    const exact = await runCommand(['billing', '--exact'], { transport: billingGateway().transport, env });
    // Derived: the exact difference, to the ledger's 8 places; what the service sent, every digit.
    expect(exact.stdout).toContain('Remaining                   ¥12,345,677,666.66667789   (soft_limit_usd − total_usage / 100)');
    expect(exact.stdout).toContain('Soft limit                  ¥12,345,678,901.234567891  (soft_limit_usd: yuan, despite the name)');
  });

  it('reads a record wrapped as {code, message, data}, shows "unlimited" for an unlimited quota and a date for an expiry', async () => {
    const wrapped = '{"code": 0, "message": "ok", "data": {"object": "token_usage", "name": "team", "total_granted": 0, "total_used": 12.5, "total_available": 0, "unlimited_quota": true, "expires_at": 1830297600, "model_limits": []}}';
    const gw = billingGateway({ token: wrapped });
    const result = await runCommand(['billing'], { transport: gw.transport, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('  name                     team\n  quota                    unlimited (the key has no quota; its amounts mean nothing)\n  expires_at               2028-01-01T00:00:00+00:00\n');
    const asJson = await runCommand(['billing', '--json'], { transport: billingGateway({ token: wrapped }).transport, env });
    expect(JSON.parse(asJson.stdout).token).toEqual(JSON.parse(wrapped));
    // A failing wrapper is the service's error, never figures: the token record is named as not read, the rest shown.
    const failed = billingGateway({ token: '{"code": 1, "message": "token not found", "data": null}' });
    const error = await runCommand(['billing'], { transport: failed.transport, env });
    expect(error.code).toBe(0);
    expect(error.stderr).toBe('warning: /api/usage/token/ was not read: gw.test reported an error for /api/usage/token/ (code 1): token not found\n');
    expect(error.stdout).toContain('  record                   not read (/api/usage/token/: gw.test reported an error for /api/usage/token/ (code 1): token not found)\n');
    expect(error.stdout).toContain('Remaining                   ¥12,345,677,666.67');
  });

  it('treats an HTTP 200 carrying error as an error, never as zero: that record is named as not read, the others shown', async () => {
    const gw = billingGateway({ usage: '{"error": {"message": "usage backend down", "type": "upstream_error"}}' });
    const result = await runCommand(['billing'], { transport: gw.transport, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage                      not read (/dashboard/billing/usage: gw.test reported an error for /dashboard/billing/usage: usage backend down)\n');
    expect(result.stdout).toContain('Remaining                  not known (a record above was not read)\n');
    expect(result.stderr).toBe('warning: /dashboard/billing/usage was not read: gw.test reported an error for /dashboard/billing/usage: usage backend down\n');
    const asJson = JSON.parse((await runCommand(['billing', '--json'], { transport: billingGateway({ usage: '{"error": {"message": "usage backend down"}}' }).transport, env })).stdout);
    expect(asJson.usage).toBeNull();
    expect(asJson.remaining).toBeNull();
    expect(asJson.missing).toEqual([{ endpoint: '/dashboard/billing/usage', kind: 'service', message: 'gw.test reported an error for /dashboard/billing/usage: usage backend down', status: 200 }]);
  });

  it('exits 3 on 401 and 1 on a malformed amount', async () => {
    const gw = mockGateway();
    for (const path of ['/dashboard/billing/subscription', '/dashboard/billing/usage', '/api/usage/token/']) gw.pool.intercept({ path }).reply(401, '{"error": {"message": "bad key"}}', json);
    expect((await runCommand(['billing'], { transport: gw.transport, env })).code).toBe(3);
    const bad = billingGateway({ usage: '{"total_usage": "12"}' });
    const result = await runCommand(['billing'], { transport: bad.transport, env });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('warning: /dashboard/billing/usage was not read: unexpected response from gw.test: total_usage is not a number (got "12")\n');
    const huge = billingGateway({ usage: '{"total_usage": 1e400}' });
    expect((await runCommand(['billing'], { transport: huge.transport, env })).stderr).toBe('warning: /dashboard/billing/usage was not read: unexpected response from gw.test: total_usage is out of range (at most 100 digits before the point and 100 after; got 1e400)\n');
    // Nothing read at all: the first failure's exit code.
    const none = mockGateway();
    for (const path of ['/dashboard/billing/subscription', '/dashboard/billing/usage', '/api/usage/token/']) none.pool.intercept({ path }).reply(200, '{"error": {"message": "billing off"}}', json);
    const nothing = await runCommand(['billing'], { transport: none.transport, env });
    expect(nothing.code).toBe(1);
    expect(nothing.stdout).toBe('');
  });

  it('--compare flags a mismatch with the native balance', async () => {
    const gw = billingGateway({ subscription: '{"soft_limit_usd": 1000.00}', usage: '{"total_usage": 5000}' });
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, '{"currency": "CNY", "balance": "940.00000000", "lifetime_spend": "50.00000000", "plan": {"has_active_plan": false}, "api_key": null}', json);
    const result = await runCommand(['billing', '--compare', '--json'], { transport: gw.transport, env });
    expect(JSON.parse(result.stdout).compare).toEqual({
      native_balance: '940.00000000',
      native_lifetime_spend: '50.00000000',
      native_total: '990.00000000',
      soft_limit: '1000.00000000',
      matches: false,
      usage_yuan: '50.00000000',
      usage_is_account_spend: true,
    });
    const again = billingGateway({ subscription: '{"soft_limit_usd": 1000.00}', usage: '{"total_usage": 5000}' });
    again.pool.intercept({ path: '/v1/open/balance' }).reply(200, '{"currency": "CNY", "balance": "940.00000000", "lifetime_spend": "50.00000000", "plan": {"has_active_plan": false}, "api_key": null}', json);
    const table = await runCommand(['billing', '--compare'], { transport: again.transport, env });
    expect(table.stdout).toContain('Native balance + lifetime spend  ¥990.00  vs soft limit ¥1,000.00: MISMATCH\n');
    expect(table.stdout).toContain("Usage vs lifetime spend          equal: usage is the account's spend\n");
  });
});

const balanceBody = (used: string, limit: string | null = '20.00000000', balance = '150.00000000') =>
  `{"currency": "CNY", "balance": "${balance}", "lifetime_spend": "10.00000000", "plan": {"has_active_plan": false}, "api_key": {"name": "ci", "prefix": "gw-sk", "daily_cost_limit": ${limit === null ? 'null' : `"${limit}"`}, "daily_cost_used": "${used}"}}`;

function checkGateway(balance = balanceBody('5.00000000')) {
  const gw = mockGateway();
  gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, balance, json).persist();
  gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/usage?') }).reply(200, '{"buckets": [{"day": 1795132800, "n": 3, "amount": "7.50000000"}], "totals": {"n": 3, "amount": "7.50000000"}}', json).persist();
  gw.pool.intercept({ path: '/v1/models' }).reply(200, '{"object": "list", "data": [{"id": "gpt-5"}, {"id": "glm-4.6"}]}', json).persist();
  return gw;
}

describe('tally check', () => {
  it('passes every kind of condition (exit 0) and prints one line each, amounts as tables show them', async () => {
    const result = await runCommand(
      ['check', '--min-balance', '100', '--max-daily-used', '50%', '--max-spend', '10', '--since', '7d', '--require-model', 'gpt-5'],
      { transport: checkGateway().transport, env, now: () => Date.UTC(2026, 10, 21, 12) },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'PASS  min-balance          actual ¥150.00, limit ¥100.00',
        'PASS  max-daily-used       actual 25.0%, limit 50% (¥5.00 of the ¥20.00 daily limit spent today)',
        'PASS  max-spend            actual ¥7.50, limit ¥10.00 (spend = usage totals."amount" over the window 2026-11-15 00:00 → 2026-11-22 00:00 UTC+00:00 (7 days))',
        'PASS  require-model:gpt-5  gpt-5: available',
        '',
      ].join('\n'),
    );
  });

  it('fails with exit 5, warns without failing, and prints the JSON report: decimal strings with a unit', async () => {
    const result = await runCommand(
      ['check', '--json', '--min-balance', '200', '--warn-balance', '500', '--max-daily-used', '4.99', '--warn-daily-used', '20%', '--require-model', 'o3'],
      { transport: checkGateway().transport, env },
    );
    expect(result.code).toBe(5);
    expect(JSON.parse(result.stdout)).toEqual({
      ok: false,
      checks: [
        // Amounts the service sent, as it sent them.
        { name: 'min-balance', ok: false, level: 'fail', actual: '150.00000000', limit: '200', unit: 'CNY' },
        { name: 'warn-balance', ok: true, level: 'warn', actual: '150.00000000', limit: '500', unit: 'CNY' },
        { name: 'max-daily-used', ok: false, level: 'fail', actual: '5.00000000', limit: '4.99', unit: 'CNY' },
        { name: 'warn-daily-used', ok: true, level: 'warn', actual: '25', limit: '20', unit: 'percent', detail: '¥5.00 of the ¥20.00 daily limit spent today' },
        { name: 'require-model:o3', ok: false, level: 'fail', actual: 'not available to this key', limit: 'o3', unit: 'model' },
      ],
    });
    expect(JSON.parse(result.stderr)).toEqual({ error: { kind: 'check', message: '3 of 5 checks failed' } });
  });

  it('reports a share of a key without a daily limit as not measured, never as 0%, and as a warning: it cannot apply, so it never fails a build', async () => {
    const result = await runCommand(['check', '--json', '--max-daily-used', '80%'], { transport: checkGateway(balanceBody('5.00000000', null)).transport, env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).checks[0]).toEqual({ name: 'max-daily-used', ok: true, level: 'warn', actual: null, limit: '80', unit: 'percent', detail: 'does not apply: the key has no daily limit to take a share of (spent ¥5.00 today)' });
  });

  it('shows an actual at least as precisely as its limit, and more where they would read the same; JSON carries the exact share', async () => {
    // 15.04/550 = 2.73454...%: against 2.73% it fails, and must not read "2.7%" (or "2.73%") beside "2.73%".
    const share = await runCommand(['check', '--max-daily-used', '2.73%'], { transport: checkGateway(balanceBody('15.04000000', '550.00000000')).transport, env });
    expect(share.code).toBe(5);
    expect(share.stdout).toBe('FAIL  max-daily-used  actual 2.735%, limit 2.73% (¥15.04 of the ¥550.00 daily limit spent today)\n');
    const json = await runCommand(['check', '--json', '--max-daily-used', '2.73%'], { transport: checkGateway(balanceBody('15.04000000', '550.00000000')).transport, env });
    expect(JSON.parse(json.stdout).checks[0].actual).toBe('2.73454545');
    // ¥1.374 against ¥1.37: two different amounts never read the same on a failure.
    const amount = await runCommand(['check', '--max-daily-used', '1.37'], { transport: checkGateway(balanceBody('1.37400000')).transport, env });
    expect(amount.code).toBe(5);
    expect(amount.stdout).toBe('FAIL  max-daily-used  actual ¥1.374, limit ¥1.370\n');
    const limitPlaces = await runCommand(['check', '--min-balance', '150.125'], { transport: checkGateway().transport, env });
    expect(limitPlaces.stdout).toBe('FAIL  min-balance  actual ¥150.000, limit ¥150.125\n');
  });

  it('exits 0 with only warnings', async () => {
    const result = await runCommand(['check', '--warn-balance', '500'], { transport: checkGateway().transport, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('WARN  warn-balance  actual ¥150.00, limit ¥500.00\n');
  });

  it('writes GitHub Actions annotations and a Markdown summary with amounts as tables show them', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const summary = join(dir.path, 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    const result = await runCommand(['check', '--min-balance', '200', '--warn-balance', '6000.5', '--require-model', 'gpt-5'], {
      transport: checkGateway(balanceBody('5.00000000', '20.00000000', '5770.9511768')).transport,
      env: { ...env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('::warning title=tally check::warn-balance: actual ¥5,770.95, limit ¥6,000.50\n');
    expect(readFileSync(summary, 'utf8')).toBe(
      [
        '# earlier step',
        '### tally check',
        '',
        '| result | check | measured |',
        '| --- | --- | --- |',
        '| ✅ pass | min-balance | actual ¥5,770.95, limit ¥200.00 |',
        '| ⚠️ warn | warn-balance | actual ¥5,770.95, limit ¥6,000.50 |',
        '| ✅ pass | require-model:gpt-5 | gpt-5: available |',
        '',
        '',
      ].join('\n'),
    );
    const failing = await runCommand(['check', '--min-balance', '6000'], { transport: checkGateway(balanceBody('5.00000000', '20.00000000', '5770.9511768')).transport, env: { ...env, GITHUB_ACTIONS: 'true' } });
    expect(failing.code).toBe(5);
    expect(failing.stdout).toContain('::error title=tally check::min-balance: actual ¥5,770.95, limit ¥6,000.00\n');
  });

  it('keeps the service error exit code, or with --fail-open turns an unreachable service into a warning, said on stderr too', async () => {
    const down = () => {
      const gw = mockGateway();
      gw.pool.intercept({ path: '/v1/open/balance' }).replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
      return gw;
    };
    const strict = await runCommand(['check', '--min-balance', '1'], { transport: down().transport, env });
    expect(strict.code).toBe(1);
    const open = await runCommand(['check', '--min-balance', '1', '--fail-open'], { transport: down().transport, env });
    expect(open.code).toBe(0);
    expect(open.stdout).toBe('WARN  min-balance  limit ¥1.00: not measured (skipped, service unreachable: cannot connect to gw.test: connection refused)\n');
    expect(open.stderr).toBe('warning: --fail-open: skipped min-balance because the service could not be reached (cannot connect to gw.test: connection refused)\n');
    const asJson = await runCommand(['check', '--min-balance', '1', '--fail-open', '--json'], { transport: down().transport, env: { ...env, GITHUB_ACTIONS: 'true' } });
    expect(asJson.code).toBe(0);
    expect(asJson.stderr).toContain('warning: --fail-open: skipped min-balance');
    expect(asJson.stderr).toContain('::warning title=tally check::--fail-open: min-balance skipped because the service could not be reached\n');
    const denied = mockGateway();
    denied.pool.intercept({ path: '/v1/open/balance' }).reply(401, '{"error": {"message": "revoked"}}', json);
    expect((await runCommand(['check', '--min-balance', '1', '--fail-open'], { transport: denied.transport, env })).code).toBe(3);
  });

  it('says a device token checks the balance only', async () => {
    const dir = tempDir();
    dirs.push(dir);
    writeFileSync(join(dir.path, 'config.json'), JSON.stringify({ profiles: { default: { base_url: GW, device_token: { access_token: 'dt-0123456789abcdef' } } } }), { mode: 0o600 });
    const result = await runCommand(['check', '--min-balance', '1', '--require-model', 'gpt-5'], { transport: mockGateway().transport, env: { TALLY_CONFIG_DIR: dir.path } });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe('tally: --require-model needs an API key; a device token can check the balance only (--min-balance, --warn-balance). Use `tally login --with-token` or TALLY_API_KEY\n');
  });

  it('exits 2 for --metric naming a field the usage does not have, and lists those it has', async () => {
    const result = await runCommand(['check', '--max-spend', '10', '--metric', 'dollars'], { transport: checkGateway().transport, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('tally: --metric "dollars" is not a field of the usage buckets (they have: n, amount)\n');
  });

  it.each([
    [['check'], 'no condition given'],
    [['check', '--min-balance', '$10'], '--min-balance "$10" is not an amount in yuan'],
    [['check', '--max-daily-used', 'lots'], '--max-daily-used "lots" is not an amount in yuan'],
    [['check', '--min-balance', '5', '--since', '7d'], '--since, --until, --month and --last go with --max-spend'],
    [['check', '--min-balance', '5', '--metric', 'cost'], '--metric and --utc-offset go with --max-spend, a growth or anomaly check, or --min-runway/--warn-runway'],
    [['check', '--min-balance', '5', '--days', '3'], '--days goes with --min-runway or --warn-runway'],
    [['check', '--min-runway', 'soon'], '--min-runway "soon" is not a whole number'],
  ])('exits 2 for %j', async (argv, message) => {
    const result = await runCommand(argv, { transport: mockGateway().transport, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('accepts ¥ and CNY before an amount', async () => {
    const result = await runCommand(['check', '--min-balance', '¥100', '--warn-balance', 'CNY 120.5'], { transport: checkGateway().transport, env });
    expect(result.code).toBe(0);
  });
});
