// A fleet whose account is read by a device token beside an API key: the account's figures that
// only the key can read (this month's spend, a day's average) are counted once in the total,
// from the profile that can read them, whichever profile comes first (never ¥0.00 from the token).
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { runTally, tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30);
let sandbox: Sandbox;
let deviceToken: unknown;
const login = tempDir();
const state = tempDir();

beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(NOW), accountLimit: 1_000_000, deviceInterval: 1, autoApproveAfterPolls: 1 });
  const signed = await runTally(['--profile', 'dev', 'login', '--device', '--base-url', sandbox.baseUrl], { env: { TALLY_CONFIG_DIR: login.path }, now: NOW, timeoutMs: 30_000 });
  expect(signed.code, signed.stderr).toBe(0);
  const { readFileSync } = await import('node:fs');
  deviceToken = JSON.parse(readFileSync(`${login.path}/config.json`, 'utf8')).profiles.dev.device_token;
  // "aaa" (the device token) comes before "key" in name order: the account's first profile cannot read its usage.
  writeFileSync(`${state.path}/config.json`, JSON.stringify({ profiles: { aaa: { base_url: sandbox.baseUrl, device_token: deviceToken }, key: { base_url: sandbox.baseUrl, api_key: sandbox.demoKey } } }), { mode: 0o600 });
});
afterAll(async () => {
  await sandbox.close();
  login.remove();
  state.remove();
});

describe('a fleet with a device token beside an API key of the same account', () => {
  it("totals the account's month and daily average from the key's row, once", async () => {
    const one = await runTally(['--profile', 'key', 'status', '--json'], { env: { TALLY_CONFIG_DIR: state.path, TZ: 'UTC' }, now: NOW });
    expect(one.code, one.stderr).toBe(0);
    const fleet = await runTally(['--all-profiles', 'status', '--wide'], { env: { TALLY_CONFIG_DIR: state.path, TZ: 'UTC', COLUMNS: '250' }, now: NOW });
    expect(fleet.code, fleet.stderr).toBe(0);
    const lines = fleet.stdout.split('\n');
    const header = lines.find((l) => l.startsWith('profile'))!;
    const keyRow = lines.find((l) => l.startsWith('key '))!;
    const total = lines.find((l) => l.startsWith('total'))!;
    expect(header, fleet.stdout).toBeDefined();
    // Every amount column of the total equals the key's own (the token's row reads none of them, or the same account's balance).
    const cells = (line: string) => line.split(/\s{2,}/).slice(1);
    const amounts = (line: string) => cells(line).filter((c) => c.startsWith('¥'));
    expect(amounts(total).length).toBeGreaterThan(1);
    expect(amounts(total)).toEqual(amounts(keyRow).slice(0, amounts(total).length));
    expect(total).not.toMatch(/¥0\.00/);
    expect(fleet.stdout).toMatch(/aaa and key share an account \(counted once\)/);
  });
});
