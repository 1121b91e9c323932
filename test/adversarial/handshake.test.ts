// A gateway that accepts TCP and never finishes its TLS handshake: every phase of a connection is
// under the command's deadline (balance ends at --timeout with exit 1; tally run does not wait to
// start its command; the status line's background refresh ends too).
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTally, tempDir } from '../helpers.js';

let server: Server;
const held: Socket[] = [];
const state = tempDir();
let base: string;

beforeAll(async () => {
  // Accepts, reads the ClientHello, answers nothing.
  server = createServer((socket) => {
    held.push(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  state.remove();
});

const env = () => ({ TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: base, TALLY_API_KEY: 'gw-sk-handshake0123456789abcdef' });

describe('adversarial: a TLS handshake that never ends', () => {
  it('ends balance at --timeout with exit 1 and the reason', async () => {
    const result = await runTally(['--timeout', '2', 'balance'], { env: env(), timeoutMs: 25_000 });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^tally: timed out after 2s waiting for 127\.0\.0\.1:\d+\n$/);
  });

  it('ends a usage request of several parts at --timeout as well (the wait on the first connection is the others\' too)', async () => {
    const result = await runTally(['--timeout', '2', 'usage', '--since', '200d', '--json'], { env: env(), timeoutMs: 25_000 });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/timed out after 2s/);
  });

  it('starts the command under tally run once the first reading has timed out, and says so', async () => {
    const result = await runTally(['--timeout', '2', 'run', '--max-spend', '5', '--settle', '0', '--', 'node', '-e', 'process.stdout.write("ran")'], { env: env(), timeoutMs: 40_000 });
    expect(result.signal).toBeNull();
    expect(result.stdout).toBe('ran');
    expect(result.stderr).toContain('tally run: the spend cannot be read at the start (timed out after 2s');
    expect(result.code).toBe(0);
  });
});
