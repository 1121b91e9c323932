// How many requests go out together (Transport.together, HttpClient.together): an HTTP/2 origin's
// stream limit once its first handshake says h2 (waited for while it is under way), HTTP/1.1's
// four connections where the origin chose it or over plain http, and never more than half of
// what the gateway says is left of its rate limit.
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/api/http.js';
import { nodePool } from '../../src/api/transport.js';
import { MAX_CONNECTIONS_PER_ORIGIN, MAX_STREAMS_TOGETHER, STREAMS_BEFORE_SETTINGS, type Transport } from '../../src/api/transport-types.js';
import { sandboxTls } from '../../src/sandbox/tls.js';
import { tempDir } from '../helpers.js';

const state = tempDir();
let tls: Awaited<ReturnType<typeof sandboxTls>>;
const servers: { close(): void }[] = [];

/** An HTTPS server offering h2 (with this stream limit) or HTTP/1.1 only; answers {} to everything. */
async function server(options: { streams?: number; http1Only?: boolean }): Promise<URL> {
  const answer = (_req: unknown, res: { setHeader(n: string, v: string): void; end(b: string): void }) => {
    res.setHeader('content-type', 'application/json');
    res.end('{}');
  };
  const s = options.http1Only ? https.createServer({ key: tls.key, cert: tls.cert }, answer) : http2.createSecureServer({ key: tls.key, cert: tls.cert, allowHTTP1: true, settings: { maxConcurrentStreams: options.streams ?? 100 } }, answer);
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return new URL(`https://127.0.0.1:${(s.address() as AddressInfo).port}`);
}

beforeAll(async () => {
  tls = await sandboxTls(state.path);
});
afterAll(() => {
  for (const s of servers) s.close();
  state.remove();
});

const get = (transport: Transport, url: URL) => transport({ method: 'GET', url: new URL('/x', url), headers: {}, signal: AbortSignal.timeout(5000) }).then((r) => r.discard());

describe('requests that go out together', () => {
  it("an HTTP/2 origin: its stream limit (at most 64), known from the first handshake before any answer", async () => {
    for (const [streams, expected] of [[10, 10], [100, MAX_STREAMS_TOGETHER]] as const) {
      const origin = await server({ streams });
      const pool = nodePool({ ca: tls.cert });
      try {
        // Nothing asked yet, nothing remembered: HTTP/1.1's four until a connection says otherwise.
        expect(await pool.transport.together!(origin)).toBe(MAX_CONNECTIONS_PER_ORIGIN);
        const first = get(pool.transport, origin);
        // Asked while the first connection is being opened: waits for its handshake.
        expect(await pool.transport.together!(origin)).toBe(expected);
        await first;
        expect(await pool.transport.together!(origin)).toBe(expected);
      } finally {
        pool.close();
      }
    }
  });

  it('an origin that chose HTTP/1.1, and plain http: four', async () => {
    const origin = await server({ http1Only: true });
    const pool = nodePool({ ca: tls.cert });
    try {
      const first = get(pool.transport, origin);
      expect(await pool.transport.together!(origin)).toBe(MAX_CONNECTIONS_PER_ORIGIN);
      await first;
      expect(await pool.transport.together!(new URL('http://127.0.0.1:9'))).toBe(MAX_CONNECTIONS_PER_ORIGIN);
    } finally {
      pool.close();
    }
  });

  it("a client goes no further than half of the rate limit's remaining requests (never below four)", async () => {
    for (const [remaining, expected] of [[undefined, 64], ['1000', 64], ['40', 20], ['6', 4], ['-3', 4]] as const) {
      const transport: Transport = async () => ({ status: 200, headers: { 'content-type': 'application/json', ...(remaining === undefined ? {} : { 'x-ratelimit-remaining': remaining, 'x-ratelimit-limit': '1000' }) }, body: (async function* () {
        yield new TextEncoder().encode('{}');
      })(), discard: () => undefined });
      transport.together = async () => 64;
      const client = new HttpClient({ baseUrl: new URL('https://gateway.test'), credential: { kind: 'api-key', secret: 'sk-together-test' }, transport, signal: new AbortController().signal, deadline: Infinity, timeoutSeconds: 5, sleep: async () => undefined, random: () => 0.5, now: () => 0 });
      await client.requestJson({ path: '/v1/open/balance', family: 'native', auth: 'api-key' });
      expect(await client.together(), `remaining ${remaining}`).toBe(expected);
    }
  });

  it("a caller that does not wait for an HTTP/2 server's SETTINGS counts on a few streams until they come; one that waits takes HTTP/1.1's four when they never do", async () => {
    // A server that chooses h2 and then says nothing (no SETTINGS).
    const tlsModule = await import('node:tls');
    const silent = tlsModule.createServer({ key: tls.key, cert: tls.cert, ALPNProtocols: ['h2'] }, () => undefined);
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const origin = new URL(`https://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    const pool = nodePool({ ca: tls.cert });
    try {
      const asked = get(pool.transport, origin).catch(() => undefined);
      expect(await pool.transport.together!(origin, { settings: false })).toBe(STREAMS_BEFORE_SETTINGS);
      expect(await pool.transport.together!(origin)).toBe(MAX_CONNECTIONS_PER_ORIGIN);
      void asked;
    } finally {
      pool.close();
    }
  });
});
