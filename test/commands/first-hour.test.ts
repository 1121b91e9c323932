// What a person meets in the first hour: errors that read well on a terminal, hints that point
// at the right help, notes that wrap at spaces.
import { describe, expect, it } from 'vitest';
import { wrapNote } from '../../src/output/wrap.js';
import { GW, KEY, mockGateway, runCommand } from '../helpers.js';

const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };

describe('errors and hints', () => {
  it('prints a --json error as JSON, and on a terminal the plain message too', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(401, '{"error": {"message": "revoked"}}', { headers: { 'content-type': 'application/json' } });
    const pipe = await runCommand(['balance', '--json'], { transport: gw.transport, env });
    expect(pipe.code).toBe(3);
    expect(pipe.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(pipe.stderr).error.status).toBe(401);
    const gw2 = mockGateway();
    gw2.pool.intercept({ path: '/v1/open/balance' }).reply(401, '{"error": {"message": "revoked"}}', { headers: { 'content-type': 'application/json' } });
    const tty = await runCommand(['balance', '--json'], { transport: gw2.transport, env, tty: true, width: 200 });
    const [json, plain] = tty.stderr.trim().split('\n');
    expect(JSON.parse(json!).error.kind).toBe('auth');
    expect(plain).toMatch(/^tally: gw\.test rejected the credential \(HTTP 401\): revoked/);
  });

  it.each([
    [['auth', 'stats'], 'Did you mean status?', 'See `tally auth --help`.'],
    [['statu'], 'Did you mean status?', 'See `tally --help`.'],
    [['models', '--sortt', 'x'], 'Did you mean --sort?', 'See `tally models --help`.'],
    [['config', 'sett'], 'Did you mean set?', 'See `tally config --help`.'],
  ])('%j suggests on a line of its own and points at the right help', async (argv, suggestion, help) => {
    const result = await runCommand(argv, { env });
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines.slice(1)).toEqual([suggestion, help]);
  });
});

describe('notes on a terminal', () => {
  it('wrap at spaces, never mid-word, and indent what continues', () => {
    const text = 'warning: the price catalog was not cached: cannot write the cache file: no space left on the device, so the next run fetches it again';
    const wrapped = wrapNote(text, 40, 2);
    for (const line of wrapped.split('\n')) expect(line.length).toBeLessThanOrEqual(40);
    expect(wrapped.replace(/\n {2}/g, ' ')).toBe(text);
    expect(wrapNote('a'.repeat(50), 20)).toBe(['a'.repeat(20), 'a'.repeat(20), 'a'.repeat(10)].join('\n'));
    expect(wrapNote('short', 40)).toBe('short');
  });
});

describe('CSV a spreadsheet reads', () => {
  it('adds an ISO 8601 column beside each time field of the log, the fields kept as sent', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: (p: string) => p.startsWith('/v1/open/logs?') }).reply(200, '{"data": [{"id": "c1", "created_at": 1795300000, "cost": "0.01"}, {"id": "c2", "created_at": 1795300060000, "cost": "0.02"}]}', { headers: { 'content-type': 'application/json' } });
    const result = await runCommand(['logs', '--csv'], { transport: gw.transport, env: { ...env, TZ: 'UTC' }, now: () => Date.UTC(2026, 10, 22) });
    // First a date a spreadsheet reads (in the zone of the labels), then the fields as sent, then ISO 8601.
    expect(result.stdout).toBe('date,id,created_at,cost,created_at_iso\r\n2026-11-21 22:26,c1,1795300000,0.01,2026-11-21T22:26:40Z\r\n2026-11-21 22:27,c2,1795300060000,0.02,2026-11-21T22:27:40Z\r\n');
  });
});

describe('a proxy that fails', () => {
  it('is named as the proxy, never blamed on the gateway (connection refused, a refused tunnel)', async () => {
    const { createServer } = await import('node:net');
    // A port nothing listens on, and a proxy that refuses every tunnel.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const refusing = createServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n')));
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const refusingPort = (refusing.address() as { port: number }).port;
    try {
      const base = { TALLY_BASE_URL: 'https://gw.example.com', TALLY_API_KEY: KEY };
      const down = await runCommand(['balance'], { env: { ...base, HTTPS_PROXY: `http://user:secret@127.0.0.1:${closedPort}` } });
      expect(down.code).toBe(1);
      expect(down.stderr).toBe(`tally: cannot reach gw.example.com through the proxy 127.0.0.1:${closedPort} (HTTPS_PROXY/HTTP_PROXY): connection refused\n`);
      const refused = await runCommand(['balance'], { env: { ...base, HTTPS_PROXY: `http://127.0.0.1:${refusingPort}` } });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(`tally: cannot reach gw.example.com through the proxy 127.0.0.1:${refusingPort} (HTTPS_PROXY/HTTP_PROXY): it refused to open a tunnel to gw.example.com (HTTP 403)\n`);
    } finally {
      await new Promise((resolve) => refusing.close(resolve));
    }
  });
});

describe('tally doctor with a corrupt config', () => {
  it('still runs every check it can, on what the environment gives, and names the file that is broken', async () => {
    const { freshState } = await import('../helpers.js');
    const { writeFileSync } = await import('node:fs');
    const dir = freshState();
    writeFileSync(`${dir}/config.json`, '{not json', { mode: 0o600 });
    const { startSandbox, clockStartingAt } = await import('../../src/sandbox/server.js');
    const sandbox = await startSandbox({ now: clockStartingAt(Date.UTC(2026, 10, 22)) });
    const result = await runCommand(['doctor', '--json'], { env: { TALLY_CONFIG_DIR: dir, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey }, now: () => Date.UTC(2026, 10, 22) }).finally(() => sandbox.close());
    expect(result.code).toBe(1);
    const checks = JSON.parse(result.stdout).checks as { name: string; level: string; detail: string }[];
    expect(checks.map((c) => c.name)).toEqual(expect.arrayContaining(['tally', 'node', 'config.json', 'base URL', 'credential', 'gateway', 'clock']));
    expect(checks.find((c) => c.name === 'config.json' && c.level === 'fail')?.detail).toContain(`config unreadable: ${dir}/config.json`);
    expect(checks.find((c) => c.name === 'gateway')?.level).toBe('pass');
  });
});
