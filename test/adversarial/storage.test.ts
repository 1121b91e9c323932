// The credential store: private modes whatever the umask, a corrupt file left alone, and
// concurrent or killed writers never leaving half a file.
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { NODE, runTally, tempDir, skipWithout } from '../helpers.js';

let sandbox: Sandbox;
const dirs: { path: string; remove: () => void }[] = [];
const BIN = fileURLToPath(new URL('../../bin/tally.js', import.meta.url));
function state() {
  const d = tempDir();
  dirs.push(d);
  return d.path;
}
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
  dirs.forEach((d) => d.remove());
});

/** Runs tally through sh so that the umask can be set first. */
function withUmask(umask: string, args: string[], env: Record<string, string>, input: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', `umask ${umask}; exec "$0" "$@"`, NODE, BIN, ...args], { env: { PATH: process.env.PATH, ...env } });
    child.on('close', (code) => resolve(code));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

describe('adversarial: the credential store', () => {
  it('is 0600 in a 0700 folder under umask 000, also when a 0644 file was there', async () => {
    const dir = join(state(), 'nested', 'tally');
    const login = ['login', '--base-url', sandbox.baseUrl, '--with-token'];
    expect(await withUmask('000', login, { TALLY_CONFIG_DIR: dir }, sandbox.demoKey)).toBe(0);
    const file = join(dir, 'config.json');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    chmodSync(file, 0o644);
    expect(await withUmask('000', login, { TALLY_CONFIG_DIR: dir }, sandbox.limitedKey)).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['truncated', Buffer.from('{"profiles": {"default": {"base_url": "http://x", "api_k')],
    ['binary', Buffer.from([0x00, 0xff, 0xfe, 0x01, 0x7b, 0x22])],
    ['not JSON', Buffer.from('profiles = default\n')],
  ])('reports a %s config (exit 2), keeps its bytes, and still works from the environment', async (_name, bytes) => {
    const dir = state();
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'config.json');
    writeFileSync(file, bytes, { mode: 0o600 });
    const stored = await runTally(['balance'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(stored.code).toBe(2);
    expect(stored.stderr).toMatch(new RegExp(`^tally: config unreadable: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}; not modified`));
    const login = await runTally(['login', '--base-url', sandbox.baseUrl, '--with-token'], { env: { TALLY_CONFIG_DIR: dir }, input: sandbox.demoKey });
    expect(login.code).toBe(2);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    const fromEnv = await runTally(['balance', '--json'], { env: { TALLY_CONFIG_DIR: dir, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey } });
    expect(fromEnv.code).toBe(0);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('stores a dotted profile name and base URL as single keys, not nested objects', async () => {
    const dir = state();
    const result = await runTally(['login', '--profile', 'gw.example.com', '--base-url', sandbox.baseUrl, '--with-token'], { env: { TALLY_CONFIG_DIR: dir }, input: sandbox.demoKey });
    expect(result.code).toBe(0);
    const profiles = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles;
    expect(Object.keys(profiles)).toEqual(['gw.example.com']);
    expect(profiles['gw.example.com'].base_url).toBe(sandbox.baseUrl);
    const balance = await runTally(['balance', '--json', '--profile', 'gw.example.com'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(balance.code).toBe(0);
  });

  it('keeps both profiles when two logins run at the same time', async () => {
    const dir = state();
    const logins = ['alpha', 'beta', 'gamma'].map((profile) =>
      runTally(['login', '--profile', profile, '--base-url', sandbox.baseUrl, '--with-token', '--no-verify'], { env: { TALLY_CONFIG_DIR: dir }, input: sandbox.demoKey }),
    );
    const results = await Promise.all(logins);
    expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
    const profiles = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles;
    expect(Object.keys(profiles).sort()).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('leaves the old or the new file, never half of one, when a writer is killed', async () => {
    const dir = state();
    await runTally(['login', '--profile', 'keep', '--base-url', sandbox.baseUrl, '--with-token', '--no-verify'], { env: { TALLY_CONFIG_DIR: dir }, input: sandbox.demoKey });
    for (let round = 0; round < 8; round++) {
      const child = spawn(NODE, [BIN, 'login', '--profile', `p${round}`, '--base-url', sandbox.baseUrl, '--with-token', '--no-verify'], { env: { PATH: process.env.PATH, TALLY_CONFIG_DIR: dir } });
      // Listen before the kill: a writer that finishes first has already closed by then.
      const closed = new Promise((resolve) => child.on('close', resolve));
      child.stdin.on('error', () => undefined);
      child.stdin.end(sandbox.demoKey);
      await new Promise((resolve) => setTimeout(resolve, 40 + round * 7));
      child.kill('SIGKILL');
      await closed;
      const profiles = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles;
      expect(profiles.keep.api_key).toBe(sandbox.demoKey);
    }
    // A killed writer may leave its lock; the next run takes it over instead of hanging.
    const after = await runTally(['login', '--profile', 'last', '--base-url', sandbox.baseUrl, '--with-token', '--no-verify'], { env: { TALLY_CONFIG_DIR: dir }, input: sandbox.demoKey });
    expect(after.code).toBe(0);
    expect(existsSync(join(dir, 'config.lock'))).toBe(false);
  }, 90_000);
});

describe('adversarial: the state folder belongs to the user', () => {
  it('never changes the mode of a folder it did not create, and warns when a credential sits where others can write', async () => {
    for (const mode of [0o1777, 0o755]) {
      const dir = state();
      chmodSync(dir, mode);
      const login = await runTally(['login', '--base-url', sandbox.baseUrl, '--with-token', '--no-verify'], { env: { TALLY_CONFIG_DIR: dir }, input: sandbox.demoKey });
      expect(login.code).toBe(0);
      expect(statSync(dir).mode & 0o7777).toBe(mode);
      expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
      const balance = await runTally(['balance'], { env: { TALLY_CONFIG_DIR: dir } });
      expect(balance.code).toBe(0);
      if (mode === 0o1777) expect(balance.stderr).toBe(`warning: the folder ${dir} that holds your credentials is writable by others (mode 01777); run \`chmod 700 ${dir}\`\n`);
      else expect(balance.stderr).toBe('');
    }
  });

  it('warns when config.json itself is readable by others', async () => {
    const dir = state();
    await runTally(['login', '--base-url', sandbox.baseUrl, '--with-token', '--no-verify'], { env: { TALLY_CONFIG_DIR: dir }, input: sandbox.demoKey });
    chmodSync(join(dir, 'config.json'), 0o644);
    const balance = await runTally(['balance'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(balance.code).toBe(0);
    expect(balance.stderr).toContain(`warning: ${join(dir, 'config.json')} is readable by others (mode 0644); run \`chmod 600`);
  });

  it('refuses to write through a symbolic link in place of config.json, leaving its target alone', async () => {
    const dir = state();
    const elsewhere = join(state(), 'target.json');
    writeFileSync(elsewhere, '{"profiles": {}}');
    const { symlinkSync } = await import('node:fs');
    symlinkSync(elsewhere, join(dir, 'config.json'));
    const login = await runTally(['login', '--base-url', sandbox.baseUrl, '--with-token', '--no-verify'], { env: { TALLY_CONFIG_DIR: dir }, input: sandbox.demoKey });
    expect(login.code).toBe(2);
    expect(login.stderr).toBe(`tally: refusing to write ${join(dir, 'config.json')}: it is a symbolic link (tally writes only a file of its own there)\n`);
    expect(readFileSync(elsewhere, 'utf8')).toBe('{"profiles": {}}');
  });

  it('says clearly that a state folder cannot be made (a file in its path), exit 2, and leaves nothing behind', async () => {
    const dir = state();
    writeFileSync(join(dir, 'blocker'), '');
    const target = join(dir, 'blocker', 'tally');
    const login = await runTally(['login', '--base-url', sandbox.baseUrl, '--with-token', '--no-verify'], { env: { TALLY_CONFIG_DIR: target }, input: sandbox.demoKey });
    expect(login.code).toBe(2);
    expect(login.stderr).toMatch(/^tally: (cannot write|config unreadable).*(a part of the path is not a folder|ENOTDIR|not a directory)/i);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(dir)).toEqual(['blocker']);
  });

  // A full disk: a 64 KiB tmpfs, where the machine lets the tests mount one (as root); skipped elsewhere.
  const full = (() => {
    const dir = tempDir();
    dirs.push(dir);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir.path], { stdio: 'ignore' });
      return dir.path;
    } catch {
      return undefined;
    }
  })();
  afterAll(() => {
    if (full) execFileSync('umount', [full], { stdio: 'ignore' });
  });

  it.skipIf(skipWithout(full !== undefined))('on a full disk: the catalog is still shown with a warning, a login fails clearly (exit 2), no temporary file is left', async () => {
    const big = await startSandbox({ catalogSize: 400 });
    try {
      // Fill the disk up, leaving a few blocks.
      writeFileSync(join(full!, 'filler'), Buffer.alloc(48 * 1024));
      const pricing = await runTally(['pricing', '--json'], { env: { TALLY_CONFIG_DIR: full!, TALLY_BASE_URL: big.baseUrl } });
      expect(pricing.code).toBe(0);
      expect(JSON.parse(pricing.stdout).models).toHaveLength(400);
      expect(pricing.stderr).toMatch(/^warning: the price catalog was not cached: cannot write .*: no space left on the device/);
      // Then every block that is left.
      try {
        for (;;) appendFileSync(join(full!, 'filler2'), Buffer.alloc(1024));
      } catch {
        // Full.
      }
      const login = await runTally(['login', '--base-url', big.baseUrl, '--with-token', '--no-verify'], { env: { TALLY_CONFIG_DIR: full! }, input: big.demoKey });
      expect(login.code).toBe(2);
      expect(login.stderr).toMatch(/no space left on the device/);
      const { readdirSync } = await import('node:fs');
      const leftovers = [full!, join(full!, 'cache')].flatMap((d) => (existsSync(d) ? readdirSync(d) : []));
      expect(leftovers.filter((name) => /tmp/i.test(name))).toEqual([]);
    } finally {
      await big.close();
    }
  });
});
