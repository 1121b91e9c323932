// Round trips: a command's requests share their connections (keep-alive), independent requests go
// out together, and a finished command still exits at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { runTally, tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
let sandbox: Sandbox;
const state = tempDir();
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480 });
  env = { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: 'UTC' };
});
afterAll(async () => {
  await sandbox.close();
  state.remove();
});

const connections = (stderr: string) => ({
  opened: (stderr.match(/, new connection/g) ?? []).length,
  reused: (stderr.match(/, connection reused/g) ?? []).length,
});

describe('connections', () => {
  it('pages logs --all over one connection, and says so under --debug', async () => {
    const result = await runTally(['logs', '--since', '3d', '--param', 'limit=20', '--all', '--debug', '--json'], { env, now: NOW });
    expect(result.code).toBe(0);
    const pages = JSON.parse(result.stdout).pages as number;
    expect(pages).toBeGreaterThan(2);
    expect(connections(result.stderr)).toEqual({ opened: 1, reused: pages - 1 });
  });
});
