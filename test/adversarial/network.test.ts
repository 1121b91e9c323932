// A gateway that hangs, stalls, resets, floods or is cut off: the command ends on time,
// with the documented exit code and nothing partial on stdout.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { NODE, runTally, tempDir } from '../helpers.js';

let sandbox: Sandbox;
const state = tempDir();
const BIN = fileURLToPath(new URL('../../bin/tally.js', import.meta.url));
const env = () => ({ TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey });

beforeAll(async () => {
  sandbox = await startSandbox({ catalogSize: 5000 });
});
afterAll(async () => {
  await sandbox.close();
  state.remove();
});

describe('adversarial: the network', () => {
  it.each([
    ['never answers', 'hang'],
    ['stalls in the middle of the body', 'stall'],
  ] as const)('ends at --timeout when the gateway %s', async (_name, kind) => {
    sandbox.faults.push({ kind, path: '/v1/open/balance', times: 10 });
    const started = Date.now();
    const result = await runTally(['balance', '--timeout', '1'], { env: env() });
    const elapsed = Date.now() - started;
    sandbox.faults.length = 0;
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^tally: timed out after 1s waiting for 127\.0\.0\.1:\d+\n$/);
    expect(elapsed).toBeGreaterThanOrEqual(900);
  });

  it('gives up on a gateway that resets every connection, with exit 1', async () => {
    sandbox.faults.push({ kind: 'reset', path: '/v1/open/balance', times: 10 });
    const result = await runTally(['balance'], { env: env() });
    sandbox.faults.length = 0;
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^tally: connection to 127\.0\.0\.1:\d+ was reset\n$/);
  });

  it('aborts a response larger than 50 MB', async () => {
    let sent = 0;
    const flood: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data": "');
      const chunk = 'x'.repeat(1 << 20);
      const pump = () => {
        while (sent < 80 && res.write(chunk)) sent++;
        if (sent < 80) res.once('drain', pump);
        else res.end('"}');
      };
      pump();
      res.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => flood.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(flood.address() as AddressInfo).port}`;
    const result = await runTally(['pricing', '--refresh'], { env: { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: url } });
    flood.close();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^tally: response from 127\.0\.0\.1:\d+ is larger than 50 MB; aborted\n$/);
    expect(sent).toBeLessThan(80);
  });

  it('exits quietly when stdout is closed early (tally pricing | head -1)', async () => {
    await runTally(['pricing', '--refresh'], { env: env() });
    const child = spawn(NODE, [BIN, 'pricing'], { env: { PATH: process.env.PATH, ...env() } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it.each([
    ['a long chunked usage request', '/v1/open/usage', ['usage', '--since', '200d', '--json']],
    ['paging through the logs', '/v1/open/logs', ['logs', '--since', '30d', '--all', '--param', 'limit=5']],
  ])('stops %s on Ctrl-C with exit 130 and no partial output', async (_name, path, args) => {
    sandbox.faults.push({ kind: 'slow', path, delayMs: 5000, times: 10 });
    const child = spawn(NODE, [BIN, ...args], { env: { PATH: process.env.PATH, ...env() } });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const exit = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    await new Promise((resolve) => setTimeout(resolve, 600));
    child.kill('SIGINT');
    expect(await exit).toBe(130);
    expect(stdout).toBe('');
    sandbox.faults.length = 0;
  });
});
