// The built binary against the sandbox gateway on 127.0.0.1, port 0, with a temporary state folder.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { NODE, runTally, tempDir } from '../helpers.js';

let sandbox: Sandbox;
const state = tempDir();
const env = () => ({ TALLY_CONFIG_DIR: state.path });

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
  state.remove();
});

function allFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? allFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

describe('tally (built binary) against the sandbox', () => {
  it('prints its version and lists every command with an example', async () => {
    const version = await runTally(['--version']);
    expect(version.stdout).toBe(`${JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version}\n`);
    // The fast answer writes to file descriptor 1 itself: into a pipe its reader has closed, it
    // ends quietly and successfully, as the full program's output does.
    const bin = fileURLToPath(new URL('../../bin/tally.js', import.meta.url));
    for (const args of ['--version', 'balance --help']) {
      const closed = spawnSync('bash', ['-o', 'pipefail', '-c', `"${NODE}" "${bin}" ${args} | :`], { encoding: 'utf8' });
      expect([args, closed.status, closed.stderr]).toEqual([args, 0, '']);
    }
    const help = await runTally(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['login', 'logout', 'auth', 'balance', 'sandbox', 'demo']) expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect(help.stdout).toContain('tally balance --json');
  });

  it('refuses a key it cannot verify and stores nothing', async () => {
    const result = await runTally(['login', '--base-url', sandbox.baseUrl, '--with-token'], { env: env(), input: 'sbx-sk-wrong-key-00000000000000000\n' });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('rejected the credential (HTTP 401): invalid or missing credential');
    expect(result.stderr).toContain('nothing was stored');
    expect(result.stderr).not.toContain('sbx-sk-wrong-key-00000000000000000');
  });

  it('logs in with a key from stdin, stores it 0600 in a 0700 folder, and never prints it', async () => {
    const login = await runTally(['login', '--base-url', sandbox.baseUrl, '--with-token'], { env: env(), input: `${sandbox.demoKey}\r\n` });
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(`Logged in to ${sandbox.baseUrl} as profile "default" with key sbx-sk-d…3c5e.`);
    const config = join(state.path, 'config.json');
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(statSync(state.path).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(config, 'utf8')).profiles.default.api_key).toBe(sandbox.demoKey);

    const status = await runTally(['auth', 'status'], { env: env() });
    expect(status.code).toBe(0);
    expect(status.stdout).toBe(
      [
        'Profile default (active)',
        `  Base URL    ${sandbox.baseUrl} (stored profile)`,
        '  Credential  API key from stored profile',
        '  Key         sbx-sk-d…3c5e',
        `  Check       accepted by ${new URL(sandbox.baseUrl).host}`,
        '',
      ].join('\n'),
    );

    const balance = await runTally(['balance', '--json', '--debug'], { env: env() });
    expect(balance.code).toBe(0);
    const body = JSON.parse(balance.stdout);
    expect(body.currency).toBe('CNY');
    expect(body.balance).toMatch(/^\d+\.\d{8}$/);
    expect(body.api_key.name).toBe('demo');
    expect(balance.stderr).toMatch(/\[debug\] GET http:\/\/127\.0\.0\.1:\d+\/v1\/open\/balance \[authorization: Bearer \*\*\*\*\] -> 200 in \d+ ms, new connection \(x-ratelimit-limit: 120, x-ratelimit-remaining: \d+\)/);

    for (const output of [login, status, balance]) {
      expect(output.stdout + output.stderr).not.toContain(sandbox.demoKey);
    }
    const lastRequest = sandbox.requestsTo('/v1/open/balance').at(-1)!;
    expect(lastRequest.headers.authorization).toBe(`Bearer ${sandbox.demoKey}`);

    const logout = await runTally(['logout'], { env: env() });
    expect(logout.code).toBe(0);
    expect(logout.stdout).toBe('Logged out of profile "default": removed its API key sbx-sk-d…3c5e.\n');
    const after = await runTally(['balance'], { env: env() });
    expect(after.code).toBe(3);
    expect(after.stderr).toBe('tally: no credential: run `tally login` (or `tally login --with-token` in scripts), or set TALLY_API_KEY\n');
    for (const file of allFiles(state.path)) expect(readFileSync(file, 'utf8')).not.toContain(sandbox.demoKey);
  });

  it('uses TALLY_API_KEY and TALLY_BASE_URL without any stored profile', async () => {
    const fresh = tempDir();
    const result = await runTally(['balance'], { env: { TALLY_CONFIG_DIR: fresh.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.limitedKey } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Key +ci-runner \(sbx-sk-ltd4…\)$/m);
    expect(result.stdout).toMatch(/^Daily limit +¥5\.00$/m);
    // This key carries a total quota of its own: what it leaves is shown beside its daily limit.
    expect(result.stdout).toMatch(/^Key's quota left +¥[\d,]+\.\d{2} of ¥200\.00 granted$/m);
    // Nothing but the program's own code cache (made by the first run on this Node) and the key's
    // quota, remembered five minutes (its endpoint is rate limited hard), named without the key.
    const written = allFiles(fresh.path).filter((file) => !file.includes('/cache/code/'));
    expect(written).toEqual([expect.stringMatching(/\/cache\/key-quota-[\w.-]+\.json$/)]);
    expect(readFileSync(written[0]!, 'utf8')).not.toContain(sandbox.limitedKey);
    fresh.remove();
  });

  it('runs the demo tour with no configuration at all', async () => {
    const fresh = tempDir();
    const result = await runTally(['demo'], { env: { TALLY_CONFIG_DIR: fresh.path } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('$ tally status    #');
    expect(result.stdout).toMatch(/^Balance +¥[\d,]+\.\d{2} · lifetime spend ¥[\d,]+\.\d{2} · no active plan/m);
    expect(result.stdout).toMatch(/^Runway +[\d,]+ days?: the balance runs out on \d{4}-\d{2}-\d{2} at this pace$/m);
    expect(result.stdout).toContain('$ tally usage    #');
    expect(result.stdout).toMatch(/^total +[\d,]+ +¥[\d,]+\.\d{2}$/m);
    expect(result.stdout).toContain('$ tally forecast    #');
    expect(result.stdout).toMatch(/^Average daily spend +¥[\d,]+\.\d{2}/m);
    expect(result.stdout).toContain('$ tally models --prices    #');
    expect(result.stdout).toMatch(/^gpt-5 +400,000 +128,000 +always on: low, medium, high +¥8\.7500 +¥70\.0000 +¥0\.8750$/m);
    expect(result.stdout.replace(/^\$ tally .*$/gm, '')).not.toContain('$');
    expect(allFiles(fresh.path).filter((file) => !file.includes('/cache/code/'))).toEqual([]);
    fresh.remove();
  });

  it('serves the sandbox until interrupted', async () => {
    const bin = fileURLToPath(new URL('../../bin/tally.js', import.meta.url));
    const child = spawn(NODE, [bin, 'sandbox', '--json'], { env: { PATH: process.env.PATH, TALLY_CONFIG_DIR: state.path } });
    let stdout = '';
    const ready = new Promise<void>((resolve) => child.stdout.on('data', (d) => {
      stdout += d;
      if (stdout.includes('}')) resolve();
    }));
    await ready;
    const { base_url: baseUrl, api_key: apiKey } = JSON.parse(stdout);
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const balance = await runTally(['balance', '--json'], { env: { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: baseUrl, TALLY_API_KEY: apiKey } });
    expect(balance.code).toBe(0);
    const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exit).toBe(130);
  });
});
