// The third hardening round: the surfaces added since the second (jq, statusline, forecast, logs,
// completion) against a hostile gateway and hostile files. One describe per class of defect.
import { afterEach, describe, expect, it } from 'vitest';
import { KEY, freshState, runCommand } from '../helpers.js';
import { type HostileGateway, type Scenario, againstHostile } from './hostile-gateway.js';

const NOW = Date.UTC(2026, 10, 21, 12);
const gateways: HostileGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
});

const against = (scenario: Scenario) => againstHostile(scenario, NOW, gateways);

describe('where the key may go: continuations', () => {
  it.each([
    ['the public catalog', (base: string) => `${base}/api/pricing`, 'at another endpoint (/api/pricing, not /v1/open/logs)'],
    ['another path of the gateway', () => '/v1/open/balance?cursor=2', 'at another endpoint (/v1/open/balance, not /v1/open/logs)'],
    ['a URL with a user name and password', (base: string) => base.replace('http://', 'http://user:pass@') + '/v1/open/logs?page=2', 'at a URL with a user name or password'],
  ])('follows a continuation only to the endpoint being paged, not to %s (exit 1 naming the field)', async (_name, target, words) => {
    let base = '';
    const { run, gateway } = await against({
      name: 'elsewhere',
      routes: {
        '/v1/open/logs': () => ({ body: `{"data": [{"id": "a", "cost": "1.00"}], "next_page_url": "${target(base)}"}` }),
        '/api/pricing': { body: '{"success": true, "data": [{"model_name": "catalog-row"}]}' },
        '/v1/open/balance': { body: '{}' },
      },
    });
    base = gateway.baseUrl;
    const result = await run(['logs', '--all', '--json']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr).error.message).toContain(`pointed the next page (next_page_url) ${words}; not followed`);
    expect(gateway.requests.map((r) => r.url.pathname)).toEqual(['/v1/open/logs']);
  });

  it('never sends the key to the public catalog, even when a same-origin redirect leads there', async () => {
    const { run, gateway } = await against({
      name: 'redirect',
      routes: {
        '/v1/open/logs': { status: 302, headers: { location: '/api/pricing' }, body: '' },
        '/api/pricing': { body: '{"data": [{"model_name": "x"}]}' },
      },
    });
    await run(['logs']);
    const pricing = gateway.requests.find((r) => r.url.pathname === '/api/pricing');
    expect(pricing?.headers.authorization).toBeUndefined();
  });

  it.each([
    ['{"data": [{"id": "a"}], "has_more": true}', 'has_more'],
    ['{"data": [{"id": "a"}], "has_more": true, "first_id": "a", "last_id": "a"}', 'has_more'],
    ['{"items": [{"id": "a"}], "meta": {"hasMore": true}}', 'meta.hasMore'],
  ])('says that more exists when %s names no continuation: on stdout without --all, exit 1 with --all', async (body, field) => {
    const { run } = await against({ name: 'more', routes: { '/v1/open/logs': { body } } });
    const first = await run(['logs']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`1 record shown: only the first page, more records exist in this window (127.0.0.1:`);
    expect(first.stdout).toContain(`says more records exist (${field}) but names no continuation tally recognises`);
    const json = JSON.parse((await run(['logs', '--json'])).stdout);
    expect(json.complete).toBe(false);
    const all = await run(['logs', '--all']);
    expect(all.code).toBe(1);
    expect(all.stderr).toContain(`says more records exist (${field}) but names no continuation tally recognises; stopped after 1 page`);
  });

  it('says how many records reached stdout when a later page fails', async () => {
    const { run } = await against({
      name: 'fails-late',
      routes: {
        '/v1/open/logs': ({ count }) =>
          count < 4 ? { body: `{"data": [${Array.from({ length: 1000 }, (_, i) => `{"id": "${count}-${i}"}`).join(',')}], "next_cursor": "c${count}"}` } : { status: 500, body: '{"error": "disk on fire"}' },
      },
    });
    const result = await run(['logs', '--all', '--ndjson']);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n').filter(Boolean)).toHaveLength(3000);
    expect(result.stderr).toContain('disk on fire');
    expect(result.stderr).toContain('(3,000 records of 3 pages were written before this)');
  });
});

describe('a partial list says so, on stdout', () => {
  it('labels the page total as the page\'s and says how to get the rest, under the table', async () => {
    const { run } = await against({ name: 'page', routes: { '/v1/open/logs': { body: '{"data": [{"id": "a", "cost": "1.25"}, {"id": "b", "cost": "2.50"}], "next_cursor": "p2"}' } } });
    const result = await run(['logs']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.split('\n');
    expect(lines).toContain('page total   ¥3.75');
    expect(lines).toContain('2 records shown: only the first page, more records exist in this window (add --all, or --param cursor=p2 for the next page); the totals are of this page');
    expect(result.stdout).not.toMatch(/^total/m);
  });
});

describe('secrets, in any encoding, anywhere', () => {
  const bearer = (key: string, prefix: string) => Buffer.from(`${prefix}Bearer ${key}`).toString('base64');
  it.each([
    ['base64 of "Bearer <key>"', (key: string) => bearer(key, '')],
    ['base64 of "Bearer <key>" at another alignment', (key: string) => bearer(key, 'x')],
    ['base64 of "Bearer <key>" at the third alignment', (key: string) => bearer(key, 'xy')],
    ['base64url of the key', (key: string) => Buffer.from(`:${key}`).toString('base64url')],
    ['upper-case hex of the key', (key: string) => Buffer.from(key).toString('hex').toUpperCase()],
    ['lower-case hex of the key', (key: string) => Buffer.from(key).toString('hex')],
    ['every byte percent-encoded', (key: string) => [...Buffer.from(key)].map((b) => `%${b.toString(16)}`).join('')],
  ])('never prints the key echoed as %s, in any command', async (_name, encode) => {
    const echo = (status: number) => () => ({ status, body: `{"error": {"message": "bad credential ${encode(KEY)}"}}` });
    const { run } = await against({
      name: 'echo',
      routes: { '/v1/open/balance': echo(401), '/dashboard/billing/subscription': echo(401), '/dashboard/billing/usage': echo(401), '/api/usage/token/': echo(401) },
    });
    for (const argv of [['balance'], ['balance', '--json'], ['billing'], ['doctor'], ['balance', '--debug']]) {
      const result = await run(argv);
      const all = result.stdout + result.stderr;
      expect(all).toContain('bad credential');
      expect(all).not.toContain(encode(KEY));
      for (const form of [KEY, Buffer.from(KEY).toString('base64').slice(4, 40)]) expect(all).not.toContain(form);
    }
  });

  it('masks a stored key of any shape when the billing wrapper echoes it (an error built outside the HTTP client)', async () => {
    const odd = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    const { gateway } = await against({
      name: 'wrapper-echo',
      routes: { '/api/usage/token/': { body: `{"code": 401, "message": "token ${odd} is not valid", "data": null}` }, '/dashboard/billing/subscription': { body: '{"soft_limit_usd": 1}' }, '/dashboard/billing/usage': { body: '{"total_usage": 0}' } },
    });
    const dir = freshState();
    const login = await runCommand(['login', '--base-url', gateway.baseUrl, '--with-token', '--no-verify'], { env: { TALLY_CONFIG_DIR: dir }, stdin: odd });
    expect(login.code).toBe(0);
    const result = await runCommand(['billing'], { env: { TALLY_CONFIG_DIR: dir }, now: () => NOW });
    // The token record is named as not read (its wrapper failed), the others are shown.
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('is not valid');
    expect(result.stderr + result.stdout).not.toContain(odd);
  });

  it('masks every part of a proxy URL that can hold a secret in doctor, and refuses a key as client_id', async () => {
    const { run } = await against({ name: 'doctor', routes: { '/v1/open/balance': { body: '{}' } } });
    const result = await run(['doctor'], { env: { HTTPS_PROXY: 'http://proxy.test:3128/?token=hunter2hunter2' } });
    expect(result.stdout).toMatch(/proxy +http:\/\/proxy\.test:3128\/\?token=\*\*\*\*/);
    expect(result.stdout + result.stderr).not.toContain('hunter2');
    const dir = freshState();
    const stored = await runCommand(['config', 'set', 'client_id', 'gw-sk-abcdefghijklmnop'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(stored.code).toBe(2);
    expect(stored.stderr).toBe('tally: client_id looks like an API key: config never stores a secret; use `tally login` (or TALLY_API_KEY)\n');
    expect(stored.stdout + stored.stderr).not.toContain('abcdefghijklmnop');
  });
});

describe('gateways of the billing family that wrap their records', () => {
  it('unwraps {code, message, data} with more fields beside (a request id), and reads a failing code as an error even with zeroed data', async () => {
    const subscription = '{"soft_limit_usd": 250, "hard_limit_usd": 250}';
    const ok = await against({
      name: 'wrapped',
      routes: {
        '/dashboard/billing/subscription': { body: `{"code": 0, "message": "ok", "data": ${subscription}, "request_id": "r-1"}` },
        '/dashboard/billing/usage': { body: '{"success": true, "message": "", "data": {"total_usage": 275}, "timestamp": 1795300000}' },
        '/api/usage/token/': { body: '{"code": "success", "data": {"name": "t", "granted": 1}, "trace_id": "x"}' },
      },
    });
    const result = await ok.run(['billing', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).remaining).toBe('247.25000000');
    const failing = await against({
      name: 'failing-wrapper',
      routes: {
        '/dashboard/billing/subscription': { body: '{"code": 500, "message": "quota service down", "data": {"soft_limit_usd": 0, "hard_limit_usd": 0}}' },
        '/dashboard/billing/usage': { body: '{"code": 0, "data": {"total_usage": 24713}}' },
        '/api/usage/token/': { body: '{"code": 0, "data": {"name": "t"}}' },
      },
    });
    const refused = await failing.run(['billing', '--json']);
    // The failing record is never read as figures (no zero limit, no remaining): it is named as not read.
    expect(refused.code).toBe(0);
    const doc = JSON.parse(refused.stdout);
    expect(doc.subscription).toBeNull();
    expect(doc.remaining).toBeNull();
    expect(refused.stderr).toContain('reported an error for /dashboard/billing/subscription (code 500): quota service down');
  });
});

describe('configuration read back is checked as config set checks it', () => {
  it.each([
    ['a token_url of plain http to another host', { token_url: 'http://evil.example/token' }, 'token_url is not valid'],
    ['a key with CR LF', { api_key: 'gw-sk-abc\r\ndef' }, 'api_key contains a space, line break or other non-printable character'],
    ['a key of 50 MB', { api_key: 'k'.repeat(5000) }, 'api_key is longer than 4096 characters'],
    ['a utc_offset of +99:99', { utc_offset: '+99:99' }, 'utc_offset is not valid'],
    ['a pricing_ttl of "soon"', { pricing_ttl: 'soon' }, 'pricing_ttl is not valid'],
    ['an object as client_id', { client_id: { a: 1 } }, 'client_id is an object, not a setting'],
  ])('refuses %s with exit 2 naming the field', async (_name, fields, words) => {
    const { gateway } = await against({ name: 'config', routes: { '/v1/open/balance': { body: '{}' } } });
    const dir = freshState();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${dir}/config.json`, JSON.stringify({ profiles: { default: { base_url: gateway.baseUrl, api_key: KEY, ...fields } } }), { mode: 0o600 });
    const result = await runCommand(['balance'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toContain(`tally: profile "default" in ${dir}/config.json: ${words}`);
    expect(gateway.requests).toHaveLength(0);
    const doctor = await runCommand(['doctor'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^FAIL +settings +profile "default" in /m);
  });

  it('refuses a profile named like a flag, and completion never offers one', async () => {
    const dir = freshState();
    const result = await runCommand(['--profile=--json', 'login', '--base-url', 'https://gw.test', '--with-token', '--no-verify'], { env: { TALLY_CONFIG_DIR: dir }, stdin: KEY });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('may not start with "-"');
  });
});

describe('the terminal: only tally styles it', () => {
  const catalog = (version: string) => `{"success": true, "pricing_version": "${version}", "data": [{"model_name": "m", "quota_type": 0, "model_ratio": 1, "completion_ratio": 1, "billing_mode": "per_token", "owner_by": "v", "vendor": {"id": "1", "name": "v", "slug": "v"}, "supported_endpoint_types": ["openai"], "service_pricing": {"input_unit_price": "0.001", "output_unit_price": "0.002", "cache_read_input_price": "0"}}]}`;
  it.each([false, true])('escapes an SGR sequence in pricing_version (conceal, red) in the footer and the diff heading, colour %s', async (colour) => {
    const { run, env } = await against({ name: 'sgr', routes: { '/api/pricing': ({ count }) => ({ body: catalog(count === 1 ? 'v1\\u001b[8m' : 'v2\\u001b[31m') }) } });
    const first = await runCommand(['pricing'], { env, tty: true, color: colour, now: () => NOW });
    expect(first.stdout).toContain('catalog v1\\e[8m');
    expect(first.stdout).not.toContain('\u001b[8m');
    const diff = await runCommand(['pricing', '--diff', '--refresh'], { env, tty: true, color: colour, now: () => NOW + 1000 });
    expect(diff.stdout).not.toMatch(/\u001b\[(8|31)m/);
    void run;
  });

  it('escapes a setting carrying escape sequences in config get and list on a terminal', async () => {
    const dir = freshState();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${dir}/config.json`, JSON.stringify({ profiles: { default: { client_id: 'x\u001b[8mhidden\u001b[0m' } } }), { mode: 0o600 });
    const get = await runCommand(['config', 'get', 'client_id'], { env: { TALLY_CONFIG_DIR: dir }, tty: true });
    expect(get.stdout).toBe('x\\e[8mhidden\\e[0m\n');
    const list = await runCommand(['config', 'list'], { env: { TALLY_CONFIG_DIR: dir }, tty: true, color: true });
    expect(list.stdout).not.toContain('\u001b[8m');
  });
});

describe('flags that do not apply are refused', () => {
  it.each([
    [['statusline', '--json'], '--json does not apply to statusline'],
    [['statusline', '--jq', '.'], '--jq does not apply to statusline'],
    [['statusline', '--exact'], '--exact does not apply to statusline'],
    [['usage', '--by', 'model', '--chart'], '--chart draws the usage series over time; --by model sets models side by side'],
    [['usage', '--by', 'model', '--metric', 'cost'], '--metric chooses what --chart draws'],
    [['sandbox', '--demo'], '`tally sandbox` is the sandbox itself'],
  ])('%j is exit 2 with the reason', async (argv, words) => {
    const { run, gateway } = await against({ name: 'flags', routes: {} });
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(words);
    expect(gateway.requests).toHaveLength(0);
  });

  it('shows every digit with check --exact', async () => {
    const { run } = await against({ name: 'exact', routes: { '/v1/open/balance': { body: '{"currency": "CNY", "balance": "100.12345678", "lifetime_spend": "1", "plan": {"has_active_plan": false}, "api_key": null}' } } });
    const result = await run(['check', '--exact', '--min-balance', '50']);
    expect(result.stdout).toBe('PASS  min-balance  actual ¥100.12345678, limit ¥50\n');
  });

  it('labels amounts with the currency the service states, in check as in balance', async () => {
    const { run } = await against({ name: 'usd', routes: { '/v1/open/balance': { body: '{"currency": "USD", "balance": "100.00", "lifetime_spend": "1", "plan": {"has_active_plan": false}, "api_key": null}' } } });
    const result = await run(['check', '--min-balance', '50']);
    expect(result.stdout).toBe('PASS  min-balance  actual 100.00 USD, limit 50.00 USD\n');
    expect(JSON.parse((await run(['check', '--json', '--min-balance', '50'])).stdout).checks[0].unit).toBe('USD');
  });
});

describe('device-code answers that bend the rules', () => {
  const code = (extra: string) => ({ body: `{"device_code": "dc", "user_code": "ABCD-EFGH", "verification_uri": "https://gw.test/device", "expires_in": 600${extra}}` });
  it.each([[', "interval": "1"'], [', "interval": 1.5'], [', "interval": 1']])('reads an interval written as %s (a string of digits, a fraction rounded up)', async (interval) => {
    const { gateway } = await against({ name: 'interval', routes: { '/oauth/device/code': code(interval), '/oauth/token': { status: 400, body: '{"error": "access_denied"}' } } });
    const result = await runCommand(['login', '--device', '--base-url', gateway.baseUrl], { env: { TALLY_CONFIG_DIR: freshState() }, now: () => NOW });
    expect(result.stderr).toContain('ABCD-EFGH');
    expect(result.code).toBe(3);
    expect(gateway.requests.map((r) => r.url.pathname)).toEqual(['/oauth/device/code', '/oauth/token']);
  });

  it('refuses a user code of a megabyte instead of printing it', async () => {
    const huge = { body: `{"device_code": "dc", "user_code": "${'A'.repeat(1_000_000)}", "verification_uri": "https://gw.test/device", "expires_in": 600}` };
    const { gateway } = await against({ name: 'huge', routes: { '/oauth/device/code': huge } });
    const result = await runCommand(['login', '--device', '--base-url', gateway.baseUrl], { env: { TALLY_CONFIG_DIR: freshState() }, now: () => NOW });
    expect(result.code).toBe(1);
    expect(result.stderr.length).toBeLessThan(1000);
    expect(result.stderr).toContain('the user_code is not a short code to type (1000000 characters)');
  });
});

describe('work that never yields', () => {
  it('hears a Ctrl-C that came during the work: exit 130 and no result written', async () => {
    const { Interrupted } = await import('../../src/errors.js');
    const interrupt = new AbortController();
    const { env } = await against({ name: 'balance', routes: { '/v1/open/balance': () => {
      // The interrupt arrives while tally reads and renders the answer.
      setImmediate(() => interrupt.abort(new Interrupted('interrupted')));
      return { body: '{"currency": "CNY", "balance": "1.00", "lifetime_spend": "0", "plan": {"has_active_plan": false}, "api_key": null}' };
    } } });
    const result = await runCommand(['balance'], { env, now: () => NOW, interrupt: interrupt.signal, sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5))) });
    // Either the request itself was cut short or its result was withheld: never exit 0.
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
  });

  it('pauses every few thousand models while comparing catalogs, so an interrupt is heard', async () => {
    const { diffCatalogs } = await import('../../src/domain/catalog.js');
    const models = (n: number, price: string) => Array.from({ length: n }, (_, i) => ({ model_name: `m${i}`, service_pricing: { input_unit_price: price } }));
    let pauses = 0;
    await expect(diffCatalogs(models(20_000, '1'), models(20_000, '2'), async () => {
      if (++pauses === 2) throw new Error('interrupted');
    })).rejects.toThrow('interrupted');
    expect(pauses).toBe(2);
  });
});

describe('numbers and dates beyond range', () => {
  it.each(['"+275760-09-13T00:00:00.000Z"', '"-271821-04-20T00:00:00.000Z"', '"9999-12-31T23:59:59Z"', '9e15', '-9e15', '1e300'])('shows a log time of %s as sent, never as +000NaN, and never adds times up', async (time) => {
    const { run } = await against({ name: 'far-time', routes: { '/v1/open/logs': { body: `{"data": [{"id": "a", "created_at": ${time}, "cost": "1.00"}, {"id": "b", "created_at": ${time}, "cost": "1.00"}]}` } } });
    for (const zone of ['UTC', 'Pacific/Kiritimati', 'Etc/GMT+12']) {
      const result = await run(['logs'], { env: { TZ: zone } });
      expect(result.code).toBe(0);
      expect(result.stdout).not.toContain('NaN');
      expect(result.stdout).toMatch(/^total +¥2\.00$/m);
    }
  });
});

describe('pricing --diff against kept versions', () => {
  const catalog = (version: number) => `{"success": true, "pricing_version": "v${version}", "data": [{"model_name": "m", "quota_type": 0, "model_ratio": 1, "completion_ratio": 1, "billing_mode": "per_token", "owner_by": "v", "vendor": {"id": "1", "name": "v", "slug": "v"}, "supported_endpoint_types": ["openai"], "service_pricing": {"input_unit_price": "0.00${version}", "output_unit_price": "0.002", "cache_read_input_price": "0"}}]}`;
  it('compares with the version kept closest to --since ago, and exits 5 on changes with --exit-code', async () => {
    const { env } = await against({ name: 'versions', routes: { '/api/pricing': ({ count }) => ({ body: catalog(count) }) } });
    const day = 86_400_000;
    // One refresh a day for ten days: each brings a new price, and the one before is kept.
    for (let d = 0; d < 10; d++) expect((await runCommand(['pricing', '--refresh'], { env, now: () => NOW + d * day })).code).toBe(0);
    const result = await runCommand(['pricing', '--diff', '--since', '7d', '--json', '--exit-code'], { env, now: () => NOW + 10 * day });
    expect(result.code).toBe(5);
    const out = JSON.parse(result.stdout);
    // Last seen current 7 days ago: the version fetched on day 3.
    expect(out.pricing_version_before).toBe('v4');
    expect(out.pricing_version_after).toBe('v11');
    expect(out.changes).toEqual([{ model: 'm', kind: 'repriced', prices: { input_unit_price: ['0.004', '0.0011'] } }]);
    expect(JSON.parse(result.stderr)).toEqual({ error: { kind: 'changes', message: 'the catalog changed: 1 model added, removed or re-priced' } });
    const none = await runCommand(['pricing', '--diff', '--since', '7d'], { env: { ...env, TALLY_CONFIG_DIR: freshState() }, now: () => NOW });
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/^No earlier catalog version is kept yet/);
  });

  it('says when the closest kept version is far from the age asked (never passes a minutes-old version off as 30 days old)', async () => {
    const { env } = await against({ name: 'young versions', routes: { '/api/pricing': ({ count }) => ({ body: catalog(count) }) } });
    expect((await runCommand(['pricing', '--refresh'], { env, now: () => NOW })).code).toBe(0);
    expect((await runCommand(['pricing', '--refresh'], { env, now: () => NOW + 60_000 })).code).toBe(0);
    const result = await runCommand(['pricing', '--diff', '--since', '30d'], { env, now: () => NOW + 23 * 60_000 });
    expect(result.stderr).toMatch(/warning: no catalog version is kept from 30d ago: comparing with the closest, last seen 2\d minutes ago/);
  });
});
