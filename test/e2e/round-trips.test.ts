// Round trips: a command's requests share their connections (keep-alive), independent requests go
// out together, and a finished command still exits at once.
import { describe, expect, it } from 'vitest';
import { runTally } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
const file = sandboxForFile(NOW);

const connections = (stderr: string) => ({
  opened: (stderr.match(/, new connection/g) ?? []).length,
  reused: (stderr.match(/, connection reused/g) ?? []).length,
});

describe('connections', () => {
  it('pages logs --all over one connection, and says so under --debug', async () => {
    const result = await runTally(['logs', '--since', '3d', '--param', 'limit=20', '--all', '--debug', '--json'], { env: file.env, now: NOW });
    expect(result.code).toBe(0);
    const pages = JSON.parse(result.stdout).pages as number;
    expect(pages).toBeGreaterThan(2);
    expect(connections(result.stderr)).toEqual({ opened: 1, reused: pages - 1 });
  });
});

describe('independent requests go out together', () => {
  it('asks for the parts of a long window at once (at most 4 at a time, over at most 4 connections)', async () => {
    const { createServer } = await import('node:http');
    let inFlight = 0;
    let most = 0;
    let connectionsOpened = 0;
    const server = createServer((req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      const start = Number(new URL(req.url!, 'http://x').searchParams.get('start'));
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'content-type': 'application/json' }).end(`{"buckets": [{"t": ${start - (start % 86400)}, "calls": 1, "cost": "1.00"}], "totals": {"calls": 1, "cost": "1.00"}}`);
      }, 200);
    });
    server.on('connection', () => connectionsOpened++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const result = await runTally(['usage', '--since', '730d', '--utc-offset', '+00:00', '--json'], { env: { ...file.env, TALLY_BASE_URL: base }, now: NOW });
      expect(result.code).toBe(0);
      // 730 days are 8 parts of at most 92: sent together, four at a time.
      expect(JSON.parse(result.stdout).buckets).toHaveLength(730);
      expect(most).toBe(4);
      expect(connectionsOpened).toBe(4);
      // --debug says "new connection" once per connection opened: a request that waited for a socket another freed reused it.
      const debug = await runTally(['usage', '--since', '730d', '--utc-offset', '+00:00', '--json', '--debug'], { env: { ...file.env, TALLY_BASE_URL: base }, now: NOW });
      expect(connections(debug.stderr)).toEqual({ opened: 4, reused: 4 });
      expect(connectionsOpened).toBe(8);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
