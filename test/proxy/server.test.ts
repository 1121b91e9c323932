// The proxy's server against a gateway that misbehaves (a real loopback server, the real
// transport): an answer that never ends is cut at the timeout (502 before anything was sent), a
// huge one passes whole without being held, the key never reaches the client even when the
// gateway echoes what it was sent, and a malformed request gets a status.
import { type Server, createServer } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodePool } from '../../src/api/transport.js';
import { Decimal } from '../../src/domain/money.js';
import { SpendLedger } from '../../src/proxy/ledger.js';
import { type RunningProxy, startProxy } from '../../src/proxy/server.js';

const KEY = 'sk-gateway-secret-0123456789';
let upstream: Server;
let proxy: RunningProxy;
const pool = nodePool({ connections: 64 });

beforeAll(async () => {
  upstream = createServer((req, res) => {
    if (req.url === '/v1/hang') {
      // Headers and the beginning of a body, then nothing.
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.write('{"id":');
    }
    if (req.url === '/v1/silent') return; // not even headers
    if (req.url === '/v1/huge') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const block = Buffer.alloc(1024 * 1024, 97);
      for (let i = 0; i < 24; i++) res.write(block);
      return void res.end();
    }
    // Echoes what it was sent: the credential included, in every encoding a careless gateway might.
    const auth = String(req.headers.authorization);
    const body = JSON.stringify({ error: { message: `bad key ${auth}`, b64: Buffer.from(auth).toString('base64') } });
    res.writeHead(401, { 'content-type': 'application/json', 'x-echo': auth });
    res.end(body);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const port = (upstream.address() as AddressInfo).port;
  proxy = await startProxy({ transport: pool.transport, gateway: new URL(`http://127.0.0.1:${port}/`), credential: KEY, token: 'tok', ledger: new SpendLedger([{ name: 'cap', amount: new Decimal(1), before: new Decimal(0), raise: '', scope: 'proxy' }]), prices: new Map(), failClosed: false, timeoutMs: 1500, host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await proxy.close();
  pool.close();
  await new Promise((resolve) => upstream.close(resolve));
  upstream.closeAllConnections();
});

const ask = (path: string) => fetch(`${proxy.url}${path}`, { method: 'POST', headers: { authorization: 'Bearer tok', 'content-type': 'application/json' }, body: '{}' });

describe('the proxy in front of a gateway that misbehaves', () => {
  it('answers 502 in the interface\'s shape when the gateway sends nothing within the timeout', async () => {
    const answer = await ask('/v1/silent');
    expect(answer.status).toBe(502);
    expect(await answer.json()).toMatchObject({ error: { type: 'api_error', code: 'tally_upstream', message: expect.stringContaining('no whole answer within 1.5s') } });
  });

  it('cuts an answer that never ends at the timeout (its headers already sent: the connection ends)', async () => {
    const answer = await ask('/v1/hang');
    expect(answer.status).toBe(200);
    await expect(answer.text()).rejects.toThrow();
  });

  it('passes a 24 MiB answer whole', async () => {
    const answer = await ask('/v1/huge');
    expect((await answer.arrayBuffer()).byteLength).toBe(24 * 1024 * 1024);
  });

  it('never hands the client the key, whatever the gateway echoes (header, text, base64)', async () => {
    const answer = await ask('/v1/echo');
    const text = await answer.text();
    const headers = JSON.stringify([...answer.headers]);
    expect(answer.status, text).toBe(401);
    for (const form of [KEY, Buffer.from(`Bearer ${KEY}`).toString('base64')]) {
      expect(text).not.toContain(form);
      expect(headers).not.toContain(form);
    }
  });

  it('answers a malformed request with a status, and goes on serving', async () => {
    const port = Number(new URL(proxy.url).port);
    const reply = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let text = '';
      socket.on('data', (d) => (text += d));
      socket.on('close', () => resolve(text));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    expect((await ask('/v1/huge')).status).toBe(200);
  });
});

describe('the key scrubber', () => {
  it('overwrites the key wherever a chunk boundary falls, keeps every length, and holds nothing that begins no key', async () => {
    const { KeyScrubber } = await import('../../src/proxy/scrub.js');
    const fc = (await import('fast-check')).default;
    const forms = KeyScrubber.formsOf(KEY);
    const text = Buffer.from(`data: {"error":"bad key ${KEY} or ${Buffer.from(`Bearer ${KEY}`).toString('base64')}"}\n\n`);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 30 }), { maxLength: 20 }), (cuts) => {
        const scrubber = new KeyScrubber(forms);
        const out: Buffer[] = [];
        let at = 0;
        for (const cut of cuts) {
          out.push(scrubber.push(text.subarray(at, Math.min(text.length, at + cut))));
          at = Math.min(text.length, at + cut);
        }
        out.push(scrubber.push(text.subarray(at)), scrubber.end());
        const whole = Buffer.concat(out);
        expect(whole.length).toBe(text.length);
        expect(whole.toString()).not.toContain(KEY);
        expect(whole.toString()).toMatch(/^data: \{"error":"bad key \*+ or /);
      }),
    );
    // An event that ends in a blank line passes whole at once.
    expect(new KeyScrubber(forms).push(Buffer.from('data: {"a":1}\n\n')).toString()).toBe('data: {"a":1}\n\n');
  });
});
