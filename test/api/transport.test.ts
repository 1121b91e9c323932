import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { defaultTransport } from '../../src/api/transport.js';

describe('defaultTransport', () => {
  it('keeps connections to one origin alive for the run, at most four at a time, and closes them at the end', async () => {
    const sockets = new Set<unknown>();
    let open = 0;
    let most = 0;
    const server = createServer((_req, res) => {
      open++;
      most = Math.max(most, open);
      setTimeout(() => {
        open--;
        res.end('{}');
      }, 30);
    });
    server.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const pool = await defaultTransport({});
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    try {
      const get = async () => {
        const response = await pool.transport({ method: 'GET', url, headers: {}, signal: new AbortController().signal });
        for await (const _chunk of response.body);
        return response.reused;
      };
      expect(await get()).toBe(false);
      expect(await get()).toBe(true);
      await Promise.all(Array.from({ length: 10 }, get));
      expect(most).toBe(4);
      expect(sockets.size).toBe(4);
    } finally {
      pool.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('reaches loopback hosts directly even when a proxy is configured', async () => {
    const server = createServer((_req, res) => res.end('{"ok":true}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // The proxy port is closed: going through it would fail.
    const transport = await defaultTransport({ HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9' });
    try {
      const response = await transport.transport({
        method: 'GET',
        url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`),
        headers: {},
        signal: new AbortController().signal,
      });
      let body = '';
      for await (const chunk of response.body) body += Buffer.from(chunk).toString();
      expect([response.status, body]).toEqual([200, '{"ok":true}']);
    } finally {
      transport.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
