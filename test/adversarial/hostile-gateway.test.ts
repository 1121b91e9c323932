// The second hardening round: tally against a hostile gateway (named scenarios, real HTTP on
// 127.0.0.1). Each class of attack gets its cases; what reaches stdout or stderr never carries a
// raw control character, a malformed value is an exit 1 naming the field, and nothing crashes.
import { afterEach, describe, expect, it } from 'vitest';
import { runCommand } from '../helpers.js';
import { type HostileGateway, type Scenario, TERMINAL_CONTROL, againstHostile, balanceBody, startHostile } from './hostile-gateway.js';

const D = 86400;
const NOW = Date.UTC(2026, 10, 21, 12);
const DAY0 = Date.UTC(2026, 10, 15) / 1000;
const gateways: HostileGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
});

const against = (scenario: Scenario) => againstHostile(scenario, NOW, gateways);

const clean = (result: { stdout: string; stderr: string }) => {
  expect(result.stdout).not.toMatch(TERMINAL_CONTROL);
  expect(result.stderr).not.toMatch(TERMINAL_CONTROL);
};

const usage = (buckets: string, totals = '{}') => ({ body: `{"buckets": ${buckets}, "totals": ${totals}}` });

describe('hostile gateway: terminal safety everywhere', () => {
  it.each([
    ['an escape sequence', '"CNY\\u001b[31m"'],
    ['a C1 control', '"CN\\u009bY"'],
    ['a dollar sign', '"$"'],
    ['a number', '156'],
  ])('refuses a balance currency holding %s (exit 1 naming currency), in every view', async (_name, currency) => {
    const { run } = await against({ name: 'currency', routes: { '/v1/open/balance': { body: balanceBody({ currency }) } } });
    for (const argv of [['balance'], ['balance', '--json'], ['status'], ['forecast']]) {
      const result = await run(argv);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/currency/);
      clean(result);
    }
  });

  it.each([
    ['a bucket metric that is text', usage(`[{"start": ${DAY0}, "cost": "1.00"}, {"start": ${DAY0 + D}, "cost": "\\u001b]0;pwned\\u0007"}]`), '"cost" is not a number or decimal amount'],
    ['a total that is text', usage(`[{"start": ${DAY0}, "cost": "1.00"}]`, '{"cost": "\\u202e9.99"}'), 'usage totals."cost" is not a number or decimal amount'],
    ['a metric of 1e400', usage(`[{"start": ${DAY0}, "calls": 1e400, "cost": "1.00"}]`), '"calls" holds 1e400, beyond the range tally reads'],
    ['a float time', usage(`[{"start": ${DAY0}.5, "cost": "1.00"}]`), 'usage buckets carry no time field tally can read'],
  ])('reports %s as an unexpected response naming the field, never as data', async (_name, answer, message) => {
    const { run } = await against({ name: 'usage', routes: { '/v1/open/usage': answer } });
    for (const argv of [['usage'], ['usage', '--json'], ['usage', '--csv']]) {
      const result = await run(argv);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(argv.includes('--json') ? JSON.parse(result.stderr).error.message : result.stderr).toContain(message);
      clean(result);
    }
  });

  it('escapes C1, bidirectional and zero-width characters in model names, on a terminal in JSON and CSV too, and keeps them exact on a pipe', async () => {
    const name = 'gpt\\u009b31m\\u202egnp.exe\\u200b\\u2066';
    const { run } = await against({ name: 'models', routes: { '/v1/models': { body: `{"object": "list", "data": [{"id": "${name}", "context_window": 1, "max_output_tokens": 1, "reasoning_efforts": ["none"]}]}` } } });
    for (const tty of [false, true]) {
      const table = await run(['models'], { tty });
      expect(table.stdout).toContain('gpt\\u009b31m\\u202egnp.exe\\u200b\\u2066');
      clean(table);
    }
    const json = await run(['models', '--json'], { tty: true });
    clean(json);
    expect(JSON.parse(json.stdout)[0].id).toBe('gpt\u009b31m\u202egnp.exe\u200b\u2066');
    const pipe = await run(['models', '--json']);
    expect(pipe.stdout).toContain('gpt\u009b31m\u202egnp.exe\u200b\u2066');
    const csv = await run(['models', '--csv'], { tty: true });
    clean(csv);
    expect((await run(['models', '--csv'])).stdout).toContain('gpt\u009b31m\u202egnp.exe\u200b\u2066');
  });

  it('validates the headers it reports: an X-Cache or rate-limit header with escape codes is "unrecognised", never echoed', async () => {
    const { run } = await against({
      name: 'headers',
      // C1 bytes (0x9b is CSI) are legal obs-text in a header value, so an HTTP parser lets them through.
      routes: { '/v1/open/usage': { body: `{"buckets": [{"start": ${DAY0}, "cost": "1.00"}], "totals": {"cost": "1.00"}}`, rawHeaders: 'x-ratelimit-limit: 120\r\nx-ratelimit-remaining: \u009b]0;x\r\nx-cache: \u009b31mHIT\r\n' } },
    });
    const debug = await run(['usage', '--debug']);
    expect(debug.code).toBe(0);
    expect(debug.stderr).toMatch(/\(x-ratelimit-limit: 120, x-ratelimit-remaining: unrecognised, x-cache: unrecognised\)/);
    expect(debug.stdout).toContain('cache state unknown (the gateway sent an X-Cache value tally does not know)');
    clean(debug);
    expect(JSON.parse((await run(['usage', '--json'])).stdout).cache).toBeNull();
  });
});

describe('hostile gateway: untrusted numbers and times', () => {
  it('keeps every digit of a 71-digit daily limit minus a quarter, in JSON and with --exact', async () => {
    const limit = '9'.repeat(71);
    const { run } = await against({ name: 'huge', routes: { '/v1/open/balance': { body: balanceBody({ limit: `"${limit}"`, used: '"0.25"' }) } } });
    const exact = await run(['balance', '--exact']);
    expect(exact.code).toBe(0);
    const remaining = `${'9'.repeat(70)}8.75`;
    expect(exact.stdout.replace(/,/g, '')).toContain(`Remaining today  ¥${remaining}`);
    const rounded = await run(['balance']);
    expect(rounded.stdout.replace(/,/g, '')).toContain(`Remaining today  ¥${remaining}\n`);
    expect(JSON.parse((await run(['balance', '--json'])).stdout).api_key.daily_cost_limit).toBe(limit);
  });

  it('refuses amounts beyond 100 digits the same way in both families', async () => {
    const huge = `1${'0'.repeat(101)}`;
    const { run } = await against({
      name: 'beyond',
      routes: {
        '/v1/open/balance': { body: balanceBody({ balance: `"${huge}"` }) },
        '/dashboard/billing/subscription': { body: `{"soft_limit_usd": ${huge}}` },
        '/dashboard/billing/usage': { body: '{"total_usage": 1}' },
        '/api/usage/token/': { body: '{}' },
      },
    });
    const native = await run(['balance']);
    const compat = await run(['billing']);
    // The billing record that cannot be read is named; the others are shown (exit 1 only when none was read).
    expect([native.code, compat.code]).toEqual([1, 0]);
    expect(native.stderr).toContain('balance is out of range (at most 100 digits before the point and 100 after');
    expect(compat.stderr).toContain('soft_limit_usd is out of range (at most 100 digits before the point and 100 after');
  });

  it('fills buckets that are off the grid or written as a date with a zone, keeping the service representation', async () => {
    const { run } = await against({
      name: 'times',
      routes: { '/v1/open/usage': { body: '{"buckets": [{"d": "2026-11-16+08:00", "cost": "1.00"}, {"d": "2026-11-18+08:00", "cost": "2.00"}], "totals": {"cost": "3.00"}}' } },
    });
    const result = await run(['usage', '--json']);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    // 12:00 UTC is 20:00 on the gateway's UTC+8 days: today is 2026-11-21 there.
    expect(out.buckets.map((b: { d: string }) => b.d)).toEqual(['2026-11-15+08:00', '2026-11-16+08:00', '2026-11-17+08:00', '2026-11-18+08:00', '2026-11-19+08:00', '2026-11-20+08:00', '2026-11-21+08:00']);
  });

  it('says so, clearly, when the parts of a window longer than 92 days name their fields differently', async () => {
    const { run } = await against({
      name: 'parts',
      routes: {
        '/v1/open/usage': ({ count }) => (count === 1 ? usage(`[{"start": ${DAY0 - 100 * D}, "cost": "1.00"}]`) : usage(`[{"ts": ${(DAY0 - 5 * D) * 1000}, "spend": "2.00"}]`)),
      },
    });
    const result = await run(['usage', '--since', '120d']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^tally: unexpected response from 127\.0\.0\.1:\d+: usage buckets do not all carry the time field "start"/);
  });

  it('keeps a field named __proto__ like any other (balance, usage buckets, log records)', async () => {
    const { run } = await against({
      name: 'proto',
      routes: {
        '/v1/open/balance': { body: balanceBody({ extra: ', "__proto__": {"polluted": true}' }) },
        '/v1/open/usage': usage(`[{"start": ${DAY0}, "__proto__": 7, "cost": "1.00"}]`, '{"__proto__": 7, "cost": "1.00"}'),
        '/v1/open/logs': { body: '{"data": [{"id": "c1", "__proto__": {"x": 1}, "cost": "0.10"}]}' },
      },
    });
    const balance = await run(['balance', '--json']);
    expect(balance.stdout).toContain('"__proto__": {\n    "polluted": true\n  }');
    const series = JSON.parse((await run(['usage', '--json'])).stdout);
    expect(Object.keys(series.buckets[0])).toEqual(['start', '__proto__', 'cost']);
    expect(Object.keys(series.buckets[1])).toEqual(['start', '__proto__', 'cost']);
    expect(series.buckets[1].__proto__).toBe(0);
    const logs = await run(['logs', '--json']);
    expect(logs.stdout).toContain('"__proto__": {');
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

describe('hostile gateway: pagination, retries and encodings', () => {
  it('follows a continuation only on the configured origin', async () => {
    const elsewhere = await startHostile({ name: 'elsewhere', routes: { '/v1/open/logs': { body: '{"data": []}' } } });
    gateways.push(elsewhere);
    const { run } = await against({ name: 'cursor', routes: { '/v1/open/logs': { body: `{"data": [{"id": "a"}], "next": "${elsewhere.baseUrl}/v1/open/logs?page=2"}` } } });
    const result = await run(['logs', '--all']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/pointed the next page \(next\) at another origin \(http:\/\/127\.0\.0\.1:\d+\); not followed/);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('stops at the page limit with an error, never a silently short list: what it fetched says complete: false', async () => {
    const { run, gateway } = await against({ name: 'endless', routes: { '/v1/open/logs': ({ count }) => ({ body: `{"data": [{"id": "${count}"}], "next_cursor": "c${count}"}` }) } });
    const result = await run(['logs', '--all', '--max-pages', '3', '--json']);
    expect(result.code).toBe(1);
    const kept = JSON.parse(result.stdout);
    expect(kept.complete).toBe(false);
    expect(kept.records).toHaveLength(3);
    expect(result.stderr).toContain('stopped after 3 pages (--max-pages 3) with more to come');
    expect(gateway.requests).toHaveLength(3);
  });

  it.each(['-5', '0', 'soon'])('still backs off on a 429 with Retry-After: %s', async (retryAfter) => {
    const { run, gateway } = await against({
      name: 'retry',
      routes: { '/v1/open/balance': ({ count }) => (count < 3 ? { status: 429, headers: { 'retry-after': retryAfter, 'x-ratelimit-remaining': '0' }, body: '{}' } : { body: balanceBody() }) },
    });
    const result = await run(['balance', '--debug']);
    expect(result.code).toBe(0);
    // Beside the balance, one request for the key's own quota (the token record).
    expect(gateway.requests.filter((r) => r.url.pathname !== '/api/usage/token/')).toHaveLength(3);
    const waits = [...result.stderr.matchAll(/waiting (\d+) ms before GET/g)].map((m) => Number(m[1]));
    expect(waits.length).toBeGreaterThanOrEqual(2);
    for (const wait of waits) expect(wait).toBeGreaterThan(0);
  });

  it.each(['false', '""', 'null', '{}'])('does not take "error": %s in a 200 body for an error', async (error) => {
    const { run } = await against({ name: 'no-error', routes: { '/v1/open/balance': { body: balanceBody({ extra: `, "error": ${error}` }) } } });
    expect((await run(['balance'])).code).toBe(0);
  });

  it('shows the message of {"success": false} on any endpoint', async () => {
    const { run } = await against({ name: 'success-false', routes: { '/v1/open/balance': { body: '{"success": false, "message": "account frozen"}' } } });
    const result = await run(['balance']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/reported success: false for \/v1\/open\/balance: account frozen\n$/);
  });

  it('names a Content-Encoding it never asked for, instead of calling the bytes "not JSON"', async () => {
    const { gzipSync } = await import('node:zlib');
    const { run, gateway } = await against({ name: 'gzip', routes: { '/v1/open/balance': { headers: { 'content-encoding': 'gzip' }, body: gzipSync(balanceBody()) } } });
    const result = await run(['balance']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/sent a gzip body for \/v1\/open\/balance, though tally sent no Accept-Encoding/);
    expect(gateway.requests[0]!.headers['accept-encoding']).toBeUndefined();
    clean(result);
  });
});

describe('hostile gateway: secrets in encoded forms', () => {
  it('masks the key in --debug and errors also when echoed URL-encoded or in base64, Location headers included', async () => {
    const key = 'gw-sk-test1234567890abcdef+/=ghijklmnop';
    const encoded = encodeURIComponent(key);
    const base64 = Buffer.from(key).toString('base64');
    const { gateway, env } = await against({
      name: 'echo',
      routes: {
        '/v1/open/balance': { status: 302, headers: { location: `/v1/open/elsewhere?k=${encoded}&b=${base64}` }, body: '' },
        '/v1/open/elsewhere': { status: 401, body: `{"error": {"message": "bad key ${encoded} ${base64} ${Buffer.from(key).toString('hex')}"}}` },
      },
    });
    const result = await runCommand(['balance', '--debug'], { env: { ...env, TALLY_API_KEY: key }, now: () => NOW });
    expect(result.code).toBe(3);
    for (const form of [key, encoded, base64, base64.replace(/=+$/, ''), Buffer.from(key).toString('hex')]) {
      expect(result.stdout + result.stderr).not.toContain(form);
    }
    expect(result.stderr).toContain('location: /v1/open/elsewhere?k=gw-sk-te…mnop&b=gw-sk-te…mnop');
    expect(gateway.requests.filter((r) => r.url.pathname !== '/api/usage/token/')).toHaveLength(2);
  });
});
