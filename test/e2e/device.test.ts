// tally login --device, built binary against the sandbox's device flow.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { NODE, runTally, tempDir } from '../helpers.js';

let sandbox: Sandbox;
const dirs: { path: string; remove: () => void }[] = [];
const BIN = fileURLToPath(new URL('../../bin/tally.js', import.meta.url));

/** How far the test has moved the clock of the sandbox and of the runs after it (an expiry is waited for so, not slept through). */
let moved = 0;
const clock = () => Date.now() + moved;

beforeAll(async () => {
  sandbox = await startSandbox({ deviceInterval: 1, accessTokenLifetime: 2, now: clock });
});
afterAll(async () => {
  await sandbox.close();
  dirs.forEach((d) => d.remove());
});

function state() {
  const d = tempDir();
  dirs.push(d);
  return d.path;
}

/** Starts a device login and resolves with the child and the user code it shows. */
function startLogin(dir: string) {
  const child = spawn(NODE, [BIN, 'login', '--device', '--base-url', sandbox.baseUrl], { env: { PATH: process.env.PATH, TALLY_CONFIG_DIR: dir } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  const code = new Promise<string>((resolve) => child.stderr.on('data', (d) => {
    stderr += d;
    const match = /Enter code: +(\S+)/.exec(stderr);
    if (match) resolve(match[1]!);
  }));
  const exit = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  return { child, code, exit, output: () => ({ stdout, stderr }) };
}

describe('device login against the sandbox', () => {
  it('signs in once approved; the token works for balance only and is renewed when it expires', async () => {
    const dir = state();
    const login = startLogin(dir);
    const userCode = await login.code;
    expect(sandbox.device.approve(userCode)).toBe(true);
    expect(await login.exit).toBe(0);
    expect(login.output().stdout).toMatch(/^Signed in to http:\/\/127\.0\.0\.1:\d+ as profile "default" with a device token \(sbx-dt-.{1}….{4}\)/);
    const config = join(dir, 'config.json');
    expect(statSync(config).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(config, 'utf8')).profiles.default.device_token;
    expect(login.output().stdout + login.output().stderr).not.toContain(stored.access_token);

    const status = await runTally(['auth', 'status', '--json'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(JSON.parse(status.stdout)).toMatchObject({ credential: 'device-token', expired: false, refreshable: true });

    const balance = await runTally(['balance'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(balance.code).toBe(0);
    expect(balance.stdout).toContain('signed in with a device token, no key-level limit');
    const usage = await runTally(['usage'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(usage.code).toBe(3);
    expect(usage.stderr).toContain('needs an API key');
    // status and the statusline show what a device token can see, and say what needs a key.
    const screen = await runTally(['status'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(screen.code).toBe(0);
    expect(screen.stdout).toMatch(/^Balance +¥[\d,]+\.\d{2} · lifetime spend/m);
    expect(screen.stdout).toContain('usage, top models and the forecast need an API key');
    expect(JSON.parse((await runTally(['status', '--json'], { env: { TALLY_CONFIG_DIR: dir } })).stdout)).toMatchObject({ usage: null, top_models: null, forecast: null, needs_api_key: ['usage', 'top_models', 'forecast'] });
    // metrics exports what a device token reads (the balance), up, and says on stderr what it cannot.
    const metrics = await runTally(['metrics'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(metrics.code).toBe(0);
    expect(metrics.stdout).toContain('tally_up{profile="default"} 1\n');
    expect(metrics.stdout).toMatch(/^tally_balance\{profile="default",currency="CNY"\} [\d.]+$/m);
    expect(metrics.stdout).not.toMatch(/^tally_runway_seconds\{/m);
    expect(metrics.stderr).toContain('signed in with a device token: only its balance and lifetime spend are exported');
    const line = await runTally(['statusline'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(line.stdout).toMatch(/^¥[\d,]+\.\d{2}\n$/);

    // The sandbox issued a 2-second token; past its expiry (the clocks moved on) balance renews it first.
    moved += 2100;
    const renewed = await runTally(['balance', '--json'], { env: { TALLY_CONFIG_DIR: dir }, now: clock() });
    expect(renewed.code).toBe(0);
    expect(JSON.parse(readFileSync(config, 'utf8')).profiles.default.device_token.access_token).not.toBe(stored.access_token);

    // Two runs that start with the same expired token: the refresh token is good once, so one
    // renews it under the store's lock and the other uses what it stored; both succeed.
    moved += 2100;
    const together = await Promise.all([1, 2, 3].map(() => runTally(['balance', '--json'], { env: { TALLY_CONFIG_DIR: dir }, now: clock() })));
    expect(together.map((r) => [r.code, r.stderr])).toEqual([[0, ''], [0, ''], [0, '']]);
  });

  it('exits 3 when the login is denied', async () => {
    const dir = state();
    const login = startLogin(dir);
    sandbox.device.deny(await login.code);
    expect(await login.exit).toBe(3);
    expect(login.output().stderr).toContain('access denied: the device login was declined');
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('stops on Ctrl-C with exit 130 and writes nothing', async () => {
    const dir = state();
    const login = startLogin(dir);
    await login.code;
    login.child.kill('SIGINT');
    expect(await login.exit).toBe(130);
    expect(readdirSync(dir)).toEqual([]);
  });
});
