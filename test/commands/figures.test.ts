// Figures that mean what their labels say: forecast amounts, runway and shares.
import { describe, expect, it } from 'vitest';
import { GW, KEY, freshState, mockGateway, runCommand } from '../helpers.js';

const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TZ: 'UTC' };
const NOW = Date.UTC(2026, 10, 21, 18); // Saturday 18:00 UTC
const D = 86400;
const DAY = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d) / 1000;
const json = { headers: { 'content-type': 'application/json' } };

/** A gateway with this balance record and a week of day buckets (time field `t`, money `cost`). */
function forecastGateway(balance: string, limit: string, used: string, dailyCost: string) {
  const gw = mockGateway();
  gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, `{"currency": "CNY", "balance": "${balance}", "lifetime_spend": "1.00000000", "plan": {"has_active_plan": false}, "api_key": {"name": "k", "prefix": "gw-sk", "daily_cost_limit": "${limit}", "daily_cost_used": "${used}"}}`, json);
  const buckets = Array.from({ length: 7 }, (_, i) => `{"t": ${DAY(2026, 11, 14) + i * D}, "calls": 1, "cost": "${dailyCost}"}`).join(',');
  gw.pool.intercept({ path: (p: string) => p.startsWith('/v1/open/usage?bucket=day') }).reply(200, `{"buckets": [${buckets}], "totals": {"calls": 7, "cost": "0"}}`, json);
  // A native gateway without the compatible token record: no key quota (not a quota that could not be read).
  gw.pool.intercept({ path: '/api/usage/token/' }).reply(404, '{"error": {"message": "Invalid URL (GET /api/usage/token/)"}}', json);
  return gw;
}

describe('tally forecast: figures of any size, as sent', () => {
  it('writes a runway of any length in plain digits, and no date past the calendar (null in JSON, words in the table)', async () => {
    const json_ = await runCommand(['forecast', '--json'], { transport: forecastGateway('1000.00000000', '50.00000000', '0.00000000', '0.00001000').transport, env, now: () => NOW });
    expect(json_.stderr).toBe('');
    expect(json_.code).toBe(0);
    expect(json_.stdout).toContain('"runway_days": 100000000,');
    expect(JSON.parse(json_.stdout).runs_out_on).toBeNull();
    const big = await runCommand(['forecast', '--json'], { transport: forecastGateway(`1${'0'.repeat(90)}.00000000`, '50.00000000', '0.00000000', '0.00000001').transport, env, now: () => NOW });
    expect(big.stdout).toContain(`"runway_days": 1${'0'.repeat(98)},`);
    expect(big.stdout).not.toMatch(/e\+/);
    const table = await runCommand(['forecast'], { transport: forecastGateway('1000.00000000', '50.00000000', '0.00000000', '0.00001000').transport, env, now: () => NOW, width: 200 });
    expect(table.stdout).toContain('Runway               100,000,000 days: the balance runs out after the year 9999 at this pace\n');
  });

  it('passes native amounts through as sent, and keeps derived amounts to 8 places with --exact', async () => {
    const gw = forecastGateway('100.00000000', '50.00000000', '2.00000000', '1.00000000');
    const out = JSON.parse((await runCommand(['forecast', '--json'], { transport: gw.transport, env, now: () => NOW })).stdout);
    expect(out.today.used).toBe('2.00000000');
    expect(out.today.limit).toBe('50.00000000');
    expect(out.balance).toBe('100.00000000');
    // 2 spent in 18 of 24 hours: 8/3 by the day's end, to the ledger's 8 places.
    expect(out.today.projected).toBe('2.66666667');
    const exact = await runCommand(['forecast', '--exact'], { transport: forecastGateway('100.00000000', '50.00000000', '2.00000000', '1.00000000').transport, env, now: () => NOW, width: 200 });
    expect(exact.stdout).toBe(
      [
        'Balance              ¥100.00000000',
        'Average daily spend  ¥1  (the last 7 complete days, 2026-11-14 to 2026-11-20: ¥7)',
        'Runway               100 days: the balance runs out on 2027-03-01 at this pace',
        // Seven days spent 1 each, the series' other days nothing: a wide range, its ends to 8 places.
        "This month           ¥7 so far; ¥16.25 projected by the month's end (80% range ¥13.69531166 to ¥18.80468834, with the weekday pattern)",
        "Today                ¥2.00000000 spent by this key; ¥2.66666667 projected by the day's end; the ¥50.00000000 limit is not reached at this pace",
        'the gateway\'s day grid, inferred from the data; spend from usage field "cost"',
        '',
      ].join('\n'),
    );
    for (const line of exact.stdout.split('\n')) expect(line).not.toMatch(/\d{9,}\.|\.\d{9,}/);
  });
});

describe('a stored credential goes only to the origin it was stored for', () => {
  it('exits 3 when --base-url or TALLY_BASE_URL names another origin, and sends nothing there', async () => {
    const dir = freshState();
    const login = await runCommand(['login', '--base-url', GW, '--with-token', '--no-verify'], { env: { TALLY_CONFIG_DIR: dir }, stdin: KEY });
    expect(login.code).toBe(0);
    // A gateway that records nothing: any request to it would fail the test as an unmatched one.
    const elsewhere = mockGateway('https://elsewhere.test');
    for (const how of [{ argv: ['--base-url', 'https://elsewhere.test'], env: {} }, { argv: [], env: { TALLY_BASE_URL: 'https://elsewhere.test/v2' } }]) {
      const result = await runCommand([...how.argv, 'balance'], { transport: elsewhere.transport, env: { TALLY_CONFIG_DIR: dir, ...how.env } });
      expect(result.code).toBe(3);
      expect(result.stderr.split('\n')[0]).toBe(
        `tally: the credential of profile "default" was stored for https://gw.test, not https://elsewhere.test (${how.argv.length ? '--base-url' : 'TALLY_BASE_URL'}); it is sent only to its own origin`,
      );
      expect(result.stderr).toContain('Set TALLY_API_KEY for https://elsewhere.test');
    }
    // The same origin with another path is the same gateway; TALLY_API_KEY makes another origin fine.
    const samePath = mockGateway();
    samePath.pool.intercept({ path: '/v9/v1/open/balance' }).reply(200, '{"currency": "CNY", "balance": "1.00", "lifetime_spend": "0", "plan": {"has_active_plan": false}, "api_key": null}', json);
    expect((await runCommand(['--base-url', `${GW}/v9`, 'balance', '--json'], { transport: samePath.transport, env: { TALLY_CONFIG_DIR: dir } })).code).toBe(0);
    // Moving the profile itself is refused too, and stores nothing.
    const moved = await runCommand(['config', 'set', 'base_url', 'https://elsewhere.test'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(moved.code).toBe(2);
    expect(moved.stderr.split('\n')[0]).toBe('tally: profile "default" holds a credential for https://gw.test; it is never sent to another origin');
    expect((await runCommand(['config', 'get', 'base_url'], { env: { TALLY_CONFIG_DIR: dir } })).stdout).toBe(`${GW}\n`);
  });
});
