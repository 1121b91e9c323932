import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { defaultTransport, nodeTransport } from '../../src/api/transport.js';

describe('defaultTransport', () => {
  it('uses node:http when no proxy is configured', async () => {
    expect(await defaultTransport({})).toBe(nodeTransport);
  });

  it('reaches loopback hosts directly even when a proxy is configured', async () => {
    const server = createServer((_req, res) => res.end('{"ok":true}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      // The proxy port is closed: going through it would fail.
      const transport = await defaultTransport({ HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9' });
      const response = await transport({
        method: 'GET',
        url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`),
        headers: {},
        signal: new AbortController().signal,
      });
      let body = '';
      for await (const chunk of response.body) body += Buffer.from(chunk).toString();
      expect([response.status, body]).toEqual([200, '{"ok":true}']);
    } finally {
      server.close();
    }
  });
});
