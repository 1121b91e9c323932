// HTTP/2 where the gateway offers it: against the TLS sandbox (h2 and http/1.1 by ALPN) every
// command answers what it answers over HTTP/1.1 (the same sandbox offering http/1.1 only), byte for
// byte; --debug says HTTP/2 and that one connection carried every request; the credential is
// still never sent elsewhere; a server that ends its session (GOAWAY) between requests, or whose
// connection closes, is reconnected to; and an HTTP/1.1-only origin is spoken to on the very
// connection that asked it (no handshake wasted).
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { sandboxTls } from '../../src/sandbox/tls.js';
import { runTally, tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
const state = tempDir();
let h2: Sandbox;
let h1: Sandbox;
let certFile: string;
let tls: Awaited<ReturnType<typeof sandboxTls>>;

beforeAll(async () => {
  tls = await sandboxTls(state.path);
  certFile = tls.certFile;
  [h2, h1] = await Promise.all([startSandbox({ now: clockStartingAt(NOW), tls, accountLimit: 1000 }), startSandbox({ now: clockStartingAt(NOW), tls, http1Only: true, accountLimit: 1000 })]);
});
afterAll(async () => {
  await Promise.all([h2.close(), h1.close()]);
  state.remove();
});

const envOf = (gateway: Sandbox, dir: string) => ({ TALLY_CONFIG_DIR: `${state.path}/${dir}`, TALLY_BASE_URL: gateway.baseUrl, TALLY_API_KEY: gateway.demoKey, TALLY_CA_FILE: certFile, TZ: 'UTC' });

describe('HTTP/2 where the gateway offers it', () => {
  it.each([
    [['status', '--json']],
    [['report', '--json']],
    [['usage', '--since', '200d', '--json']],
    [['anomalies', '--json']],
    [['export', '--since', '10d', '--csv']],
    [['logs', '--since', '3d', '--all', '--json']],
    [['models', '--prices', '--json']],
    [['audit', '--since', '5d', '--json']],
  ])('%j: the same answer over HTTP/2 as over HTTP/1.1', async (args) => {
    const [over2, over1] = await Promise.all([runTally(args, { env: envOf(h2, `a2-${args[0]}`), now: NOW }), runTally(args, { env: envOf(h1, `a1-${args[0]}`), now: NOW })]);
    expect(over2.code, over2.stderr).toBe(0);
    expect(over1.code, over1.stderr).toBe(0);
    expect(same(over2.stdout.replaceAll(h2.baseUrl, 'BASE'))).toBe(same(over1.stdout.replaceAll(h1.baseUrl, 'BASE')));
  });

  it('--debug says HTTP/2; once the gateway is known to speak it, one connection carries every request of a command', async () => {
    // A first run opens its first requests' connections together, as HTTP/1.1 would (no round trip lost where that is all there is), and learns the protocol.
    const first = await runTally(['status', '--debug'], { env: envOf(h2, 'debug2'), now: NOW });
    expect(first.code, first.stderr).toBe(0);
    const firstLines = first.stderr.split('\n').filter((l) => l.startsWith('[debug] GET https://'));
    expect(firstLines.filter((l) => l.includes('new connection')).length).toBeLessThanOrEqual(4);
    const run = await runTally(['status', '--debug'], { env: envOf(h2, 'debug2'), now: NOW });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('[debug] GET https://'));
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(line).toMatch(/, HTTP\/2/);
    expect(lines.filter((l) => l.includes('new connection'))).toHaveLength(1);
    const over1 = await runTally(['status', '--debug'], { env: envOf(h1, 'debug1'), now: NOW });
    for (const line of over1.stderr.split('\n').filter((l) => l.startsWith('[debug] GET https://'))) expect(line).toMatch(/, HTTP\/1\.1/);
    // HTTP/1.1 only: the first request goes on the connection that asked the server (none opened in vain).
    expect(h1.requests.length).toBeGreaterThan(0);
  });

  it.each(['reset', 'truncated', 'stall', 'hang'] as const)('a %s over HTTP/2 is a failure said (exit 1), never a silent exit 0 or a hang past --timeout', async (kind) => {
    const faulty = await startSandbox({ now: clockStartingAt(NOW), tls });
    try {
      faulty.faults.push({ kind, times: Infinity });
      const run = await runTally(['balance', '--timeout', '3'], { env: envOf(faulty, `fault-${kind}`), now: NOW, timeoutMs: 20_000 });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^tally: /);
    } finally {
      await faulty.close();
    }
  });

  it('anomalies the next day: only the days not seen settle are asked (with the first requests), and the answer is what HTTP/1.1 gives asking everything', async () => {
    const first = await runTally(['anomalies', '--json'], { env: envOf(h2, 'days2'), now: NOW });
    expect(first.code, first.stderr).toBe(0);
    const tomorrow = NOW + 86_400_000;
    const before = h2.requests.length;
    const [next, over1] = await Promise.all([runTally(['anomalies', '--json'], { env: envOf(h2, 'days2'), now: tomorrow }), runTally(['anomalies', '--json'], { env: envOf(h1, 'days1'), now: tomorrow })]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout.replaceAll(h2.baseUrl, 'BASE')).toBe(over1.stdout.replaceAll(h1.baseUrl, 'BASE'));
    // The two periods, today and yesterday (UTC days: the sandbox's here); the day series; nothing else.
    const asked = h2.requests.slice(before).map((r) => (r.path === '/v1/open/usage/models' ? Number(r.query.end) - Number(r.query.start) : r.path));
    expect(asked.filter((a) => a === 86_400)).toHaveLength(2);
    expect(asked.filter((a) => typeof a === 'number')).toHaveLength(4);
  });

  it('anomalies twice at once on one state folder, then tomorrow, then today again: each what a run remembering nothing says', async () => {
    const fresh = async (now: number, dir: string) => (await runTally(['anomalies', '--json'], { env: envOf(h1, dir), now })).stdout.replaceAll(h1.baseUrl, 'BASE');
    const [a, b] = await Promise.all([runTally(['anomalies', '--json'], { env: envOf(h2, 'together2'), now: NOW }), runTally(['anomalies', '--json'], { env: envOf(h2, 'together2'), now: NOW })]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    const today = await fresh(NOW, 'together1-today');
    expect(a.stdout.replaceAll(h2.baseUrl, 'BASE')).toBe(today);
    expect(b.stdout.replaceAll(h2.baseUrl, 'BASE')).toBe(today);
    const tomorrow = await runTally(['anomalies', '--json'], { env: envOf(h2, 'together2'), now: NOW + 86_400_000 });
    expect(tomorrow.stdout.replaceAll(h2.baseUrl, 'BASE')).toBe(await fresh(NOW + 86_400_000, 'together1-tomorrow'));
    // The clock set back: a day remembered that had not ended by then is not served.
    const back = await runTally(['anomalies', '--json'], { env: envOf(h2, 'together2'), now: NOW - 86_400_000 });
    expect(back.stdout.replaceAll(h2.baseUrl, 'BASE')).toBe(await fresh(NOW - 86_400_000, 'together1-yesterday'));
  });

  it('reconnects when the server ends the session between requests (GOAWAY) or the connection closes', async () => {
    // A front end that sends GOAWAY after every second stream, and closes the connection then.
    const server = http2.createSecureServer({ key: tls.key, cert: tls.cert });
    let streams = 0;
    server.on('stream', (stream, headers) => {
      const session = stream.session;
      const target = new URL(String(headers[':path']), h2.baseUrl);
      void fetchFrom(target, String(headers.authorization ?? '')).then(({ status, body, type }) => {
        stream.respond({ ':status': status, 'content-type': type, date: new Date(NOW).toUTCString() });
        stream.end(body);
        if (++streams % 2 === 0) session?.goaway();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
      const run = await runTally(['status', '--json'], { env: { ...envOf(h2, 'goaway'), TALLY_BASE_URL: base }, now: NOW });
      expect(run.code, run.stderr).toBe(0);
      expect(streams).toBeGreaterThan(2);
    } finally {
      server.close();
    }
  });
});

describe('one connection where HTTP/2 is spoken', () => {
  it('balance asks its two requests over one connection on a first run (nothing remembered): the second waits for the first handshake\'s answer', async () => {
    const run = await runTally(['balance', '--debug'], { env: envOf(h2, 'first-balance'), now: NOW });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('[debug] GET'));
    expect(lines.length).toBe(2);
    expect(lines.filter((l) => l.includes('new connection'))).toHaveLength(1);
    expect(lines.every((l) => l.includes('HTTP/2'))).toBe(true);
  });
});

describe('what a run remembers of a front end', () => {
  it('is a hint: an entry saying HTTP/1.1 for a front end that now speaks only HTTP/2 is learned again at the first handshake', async () => {
    const server = http2.createSecureServer({ key: tls.key, cert: tls.cert });
    server.on('stream', (stream, headers) => {
      void fetchFrom(new URL(String(headers[':path']), h2.baseUrl), String(headers.authorization ?? '')).then(({ status, body, type }) => {
        stream.respond({ ':status': status, 'content-type': type, date: new Date(NOW).toUTCString() });
        stream.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
      const env = { ...envOf(h2, 'relearn'), TALLY_BASE_URL: base };
      const { mkdirSync, writeFileSync, readFileSync } = await import('node:fs');
      mkdirSync(`${env.TALLY_CONFIG_DIR}/cache`, { recursive: true, mode: 0o700 });
      writeFileSync(`${env.TALLY_CONFIG_DIR}/cache/protocols.json`, JSON.stringify({ [base]: { protocol: 'http/1.1', at: NOW - 60_000 } }), { mode: 0o600 });
      const run = await runTally(['balance', '--json'], { env, now: NOW });
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(readFileSync(`${env.TALLY_CONFIG_DIR}/cache/protocols.json`, 'utf8'))[base].protocol).toBe('h2');
    } finally {
      server.close();
    }
  });
});

/** A document without the figures that move with the second the two runs happen to read the clock at (today's and the month's projections). */
function same(text: string): string {
  return text.replace(/"(projected|limit_reached_at|projected_month_end|low|high|middle)": ("[^"]*"|null)/g, '"$1": "…"');
}

/** The sandbox's answer to a request, fetched over HTTP/1.1 (the front end relays it). */
async function fetchFrom(url: URL, authorization: string): Promise<{ status: number; body: string; type: string }> {
  const https = await import('node:https');
  return new Promise((resolve, reject) => {
    https
      .get(url, { headers: { authorization }, ca: tls.cert }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 500, body, type: String(res.headers['content-type'] ?? 'application/json') }));
      })
      .on('error', reject);
  });
}
