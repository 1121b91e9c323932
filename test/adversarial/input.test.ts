// Bad input never reaches the network: exit 2, nothing sent, nothing stored.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GW, KEY, mockGateway, runCommand, tempDirs } from '../helpers.js';

const stateDir = tempDirs();

const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };

describe('adversarial: command-line input', () => {
  it.each([
    [['--timeout', 'abc', 'balance'], '--timeout "abc" is not a number of seconds'],
    [['--timeout', '-5', 'balance'], '--timeout "-5" is not a number of seconds (e.g. 30 or 2.5)'],
    [['--timeout', '1e309', 'balance'], '--timeout "1e309" is not a number of seconds'],
    [['--timeout', '0', 'balance'], '--timeout must be more than 0 seconds (got "0")'],
    [['--timeout', '90000', 'balance'], '--timeout must be at most 86400 seconds, one day (got "90000")'],
    [['usage', '--since', 'garbage'], '--since "garbage" is not a time'],
    [['usage', '--until', '2026-02-30'], '--until "2026-02-30" is not a valid date'],
    [['balance', '--frobnicate'], "unknown option '--frobnicate'"],
    [['frobnicate'], "unknown command 'frobnicate'"],
    [['pricing', '--sort', 'price'], '--sort "price" is not one of name, input, output'],
    [['check', '--max-spend', '1e3'], '--max-spend "1e3" is not an amount in yuan'],
  ])('%j exits 2 without a request', async (argv, message) => {
    const gw = mockGateway();
    const result = await runCommand(argv, { transport: gw.transport, env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    gw.done();
  });

  it.each([
    ['file:///etc/passwd', 'must use https:// (got file:)'],
    ['ftp://gw.test', 'must use https:// (got ftp:)'],
    ['gw.test', 'is not a URL'],
    ['https://alice:secret@gw.test', 'must not contain a user name or password'],
    ['http://gw.example.com', 'uses plain http:// to gw.example.com'],
  ])('--base-url %s exits 2 and sends nothing', async (url, message) => {
    const gw = mockGateway();
    const result = await runCommand(['balance', '--base-url', url], { transport: gw.transport, env: { TALLY_API_KEY: KEY } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain('secret');
    gw.done();
  });

  it('a TALLY_BASE_URL that breaks the rules is refused the same way', async () => {
    const result = await runCommand(['balance'], { env: { TALLY_API_KEY: KEY, TALLY_BASE_URL: 'http://evil.example' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('tally: TALLY_BASE_URL uses plain http:// to evil.example; use https://, or pass --allow-http if you really mean it\n');
  });

  it('a TALLY_API_KEY with a line break is refused, never sent', async () => {
    const gw = mockGateway();
    const result = await runCommand(['balance'], { transport: gw.transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: `${KEY}\r\nX-Injected: 1` } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('tally: TALLY_API_KEY contains a space, line break or other non-printable character\n');
    gw.done();
  });

  it('trims a CRLF from a key on stdin', async () => {
    const dir = stateDir();
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance', headers: { authorization: `Bearer ${KEY}` } })
      .reply(200, '{"currency": "CNY", "balance": "1", "lifetime_spend": "0", "plan": {"has_active_plan": false}, "api_key": null}');
    const result = await runCommand(['login', '--base-url', GW, '--with-token'], { transport: gw.transport, env: { TALLY_CONFIG_DIR: dir }, stdin: `${KEY}\r\n` });
    expect(result.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default.api_key).toBe(KEY);
    gw.done();
  });

  it.each([
    ['an embedded line break', `${KEY.slice(0, 10)}\n${KEY.slice(10)}`],
    ['a NUL', `${KEY}\u0000x`],
    ['an escape sequence', `${KEY}\u001b[2J`],
    ['nothing', '\r\n'],
  ])('refuses a key with %s: exit 2, nothing stored or sent', async (_name, input) => {
    const dir = stateDir();
    const gw = mockGateway();
    const result = await runCommand(['login', '--base-url', GW, '--with-token'], { transport: gw.transport, env: { TALLY_CONFIG_DIR: dir }, stdin: input });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^tally: (the key contains a space, line break, NUL or other non-printable character|no key was given); nothing was stored\n$/);
    expect(() => readFileSync(join(dir, 'config.json'))).toThrow();
    gw.done();
  });
});
