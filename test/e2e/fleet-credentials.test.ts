// A fleet never breaks on a profile's credential: every fleet command over every mix of
// credential kinds (an API key, a device token, a key the gateway refuses, a gateway that is
// down) answers with one row per profile, the exit code the contract gives (the first failed
// profile's, in name order; 0 when each answered), and never "unexpected failure". A device
// token's row shows what it can read (its balance) and nothing for the rest; a ledger leaves it
// out with a note and writes the others.
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { runCommand, runTally, tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
let sandbox: Sandbox;
let deviceToken: Record<string, unknown>;
const login = tempDir();

type Kind = 'key' | 'device' | 'refused' | 'down';
/** What each kind of profile ends with, per command: 0 answered, else its exit code. */
const EXPECTED: Record<string, Record<Kind, number>> = {
  balance: { key: 0, device: 0, refused: 3, down: 1 },
  status: { key: 0, device: 0, refused: 3, down: 1 },
  forecast: { key: 0, device: 3, refused: 3, down: 1 },
  budget: { key: 0, device: 0, refused: 0, down: 0 },
  check: { key: 0, device: 0, refused: 3, down: 1 },
  billing: { key: 0, device: 3, refused: 3, down: 1 },
  usage: { key: 0, device: 3, refused: 3, down: 1 },
  // Commands that gather across profiles themselves: a ledger leaves a device token out (it has no usage).
  export: { key: 0, device: 0, refused: 3, down: 1 },
  report: { key: 0, device: 3, refused: 3, down: 1 },
  metrics: { key: 0, device: 0, refused: 0, down: 0 },
};
const ARGS: Record<string, string[]> = { check: ['check', '--min-balance', '1'], export: ['export', '--since', '2d'] };
/** Commands whose document is the fleet's envelope, a profile each. */
const ENVELOPE = ['balance', 'status', 'forecast', 'budget', 'check', 'billing', 'usage'];

beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(NOW), accountLimit: 1_000_000, deviceInterval: 1, autoApproveAfterPolls: 1 });
  const signed = await runTally(['--profile', 'dev', 'login', '--device', '--base-url', sandbox.baseUrl], { env: { TALLY_CONFIG_DIR: login.path }, now: NOW, timeoutMs: 30_000 });
  expect(signed.code, signed.stderr).toBe(0);
  const { readFileSync } = await import('node:fs');
  deviceToken = JSON.parse(readFileSync(`${login.path}/config.json`, 'utf8')).profiles.dev.device_token;
});
afterAll(async () => {
  await sandbox.close();
  login.remove();
});

function profileOf(kind: Kind): Record<string, unknown> {
  switch (kind) {
    case 'key': return { base_url: sandbox.baseUrl, api_key: sandbox.demoKey };
    case 'device': return { base_url: sandbox.baseUrl, device_token: deviceToken };
    case 'refused': return { base_url: sandbox.baseUrl, api_key: 'sbx-sk-revoked00000000000000000000000000000' };
    case 'down': return { base_url: 'http://127.0.0.1:9', api_key: sandbox.demoKey };
  }
}

/** A state folder holding these profiles (named p0, p1, … in the order given). */
function stateWith(kinds: Kind[]): string {
  const dir = tempDir();
  cleanups.push(dir.remove);
  const profiles = Object.fromEntries(kinds.map((kind, i) => [`p${i}`, profileOf(kind)]));
  writeFileSync(`${dir.path}/config.json`, JSON.stringify({ profiles }), { mode: 0o600 });
  return dir.path;
}
const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((c) => c()));

describe('every fleet command over every mix of credential kinds', () => {
  it('answers a row per profile, with the exit code the contract gives, and never an unexpected failure (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom<Kind>('key', 'device', 'refused', 'down'), { minLength: 1, maxLength: 4 }), fc.constantFrom(...Object.keys(EXPECTED)), fc.boolean(), async (kinds, command, asked) => {
        const json = asked && ENVELOPE.includes(command);
        const state = stateWith(kinds);
        const result = await runCommand(['--all-profiles', ...(json ? ['--json'] : []), '--timeout', '10', ...(ARGS[command] ?? [command])], { env: { TALLY_CONFIG_DIR: state, TZ: 'UTC' }, now: () => NOW, width: 200 });
        expect(result.stderr).not.toMatch(/unexpected failure|internal/);
        const codes = kinds.map((kind) => EXPECTED[command]![kind]);
        expect(result.code, `${command}${json ? ' --json' : ''} over ${kinds.join(',')}: ${result.stderr}`).toBe(codes.find((c) => c !== 0) ?? 0);
        if (!ENVELOPE.includes(command)) return;
        if (json) {
          const doc = JSON.parse(result.stdout) as { profiles: { profile: string; ok: boolean }[] };
          expect(doc.profiles.map((p) => [p.profile, p.ok])).toEqual(kinds.map((_, i) => [`p${i}`, codes[i] === 0]));
        } else {
          // The table: a row for each profile, once.
          for (let i = 0; i < kinds.length; i++) expect(result.stdout.split('\n').filter((line) => line.startsWith(`p${i} `)), `p${i} in ${result.stdout}`).toHaveLength(1);
        }
      }),
      { numRuns: 60 },
    );
  }, 240_000);

  it("shows a device token's balance in its row and nothing for the rest, as status does for one profile", async () => {
    const state = stateWith(['key', 'device']);
    const table = await runCommand(['--all-profiles', 'status'], { env: { TALLY_CONFIG_DIR: state, TZ: 'UTC' }, now: () => NOW, width: 120 });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^p1 +¥[\d,.]+ +— +— +—/m);
    expect(table.stdout).toMatch(/^p0 +¥[\d,.]+ +¥[\d,.]+ +¥[\d,.]+ +\d/m);
  });

  it("shows what each key's own quota leaves beside the balance (— for a key without one)", async () => {
    const dir = tempDir();
    cleanups.push(dir.remove);
    const { KEYS } = await import('../../src/sandbox/seed.js');
    const ci = KEYS.find((k) => k.name === 'ci-runner')!.secret;
    writeFileSync(`${dir.path}/config.json`, JSON.stringify({ profiles: { ci: { base_url: sandbox.baseUrl, api_key: ci }, main: { base_url: sandbox.baseUrl, api_key: sandbox.demoKey } } }), { mode: 0o600 });
    const table = await runCommand(['--all-profiles', 'balance'], { env: { TALLY_CONFIG_DIR: dir.path, TZ: 'UTC' }, now: () => NOW, width: 160 });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^profile +balance +lifetime spend +today +daily limit +key left$/m);
    expect(table.stdout).toMatch(/^ci +¥[\d,.]+ +¥[\d,.]+ +¥[\d,.]+ +¥5\.00 +¥\d+\.\d\d$/m);
    expect(table.stdout).toMatch(/^main +¥[\d,.]+ +¥[\d,.]+ +¥[\d,.]+ +¥50\.00 +—$/m);
  });

  it('leaves a device token out of a ledger with a note, and writes the others, each saying whose spend its rows are', async () => {
    const state = stateWith(['key', 'device', 'key']);
    const ledger = await runCommand(['--all-profiles', 'export', '--since', '3d', '--csv'], { env: { TALLY_CONFIG_DIR: state, TZ: 'UTC' }, now: () => NOW });
    expect(ledger.code, ledger.stderr).toBe(0);
    const rows = ledger.stdout.trim().split('\n').slice(1);
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.split(',')[2]))).toEqual(new Set(['p0', 'p2']));
    expect(ledger.stderr).toContain('profile "p1" is signed in with a device token, which reads no usage: it is left out of the ledger');
    expect(ledger.stderr).toMatch(/profile "p0": its rows are this key's spend/);
    expect(ledger.stderr).toMatch(/profile "p2": its rows are this key's spend/);
  });
});
