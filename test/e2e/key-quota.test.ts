// A key's own total quota, across every view of a key's figures: the sandbox's world has keys
// with and without one, and a gateway that sends the token record in raw units (no currency).
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { BETA_BATCH_KEY, DEMO_KEY, LIMITED_KEY } from '../../src/sandbox/seed.js';
import { runTally } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
const file = sandboxForFile(NOW, { accountLimit: 1000 });
const raw = sandboxForFile(NOW, { accountLimit: 1000, compatUnits: 'raw' });
const tally = (args: string[], key: string, fixture = file) => runTally(args, { env: { ...fixture.env, TALLY_API_KEY: key }, now: NOW });

describe("a key's own quota", () => {
  it('bases the runway on what runs out first, and says which, in forecast, status, check and metrics alike', async () => {
    const forecast = JSON.parse((await tally(['forecast', '--json'], LIMITED_KEY)).stdout);
    expect(forecast.key_quota.currency).toBe('CNY');
    expect(forecast.key_quota.granted).toBe('200.00000000');
    const left = new Decimal(forecast.key_quota.remaining);
    expect(left.lt(forecast.balance)).toBe(true);
    expect(forecast.runway_basis).toBe('key_quota');
    // The key's quota runs out at the key's own pace (its by-model figures are the key's), never faster than its ¥5 daily limit.
    expect(['key', 'daily_limit']).toContain(forecast.key_pace.basis);
    expect(new Decimal(forecast.key_pace.daily).lte(5)).toBe(true);
    expect(forecast.runway_days.toString()).toBe(left.div(forecast.key_pace.daily).floor().toFixed());
    const status = JSON.parse((await tally(['status', '--json'], LIMITED_KEY)).stdout);
    expect(status.forecast.runway_days).toEqual(forecast.runway_days);
    const check = JSON.parse((await tally(['check', '--json', '--min-runway', '1'], LIMITED_KEY)).stdout);
    expect(check.checks[0].actual).toBe(String(forecast.runway_days));
    const metrics = (await tally(['metrics'], LIMITED_KEY)).stdout;
    expect(metrics).toContain(`tally_runway_seconds{profile="default"} ${new Decimal(String(forecast.runway_days)).mul(86400).toFixed()}\n`);
    expect(metrics).toContain(`tally_key_remaining{profile="default",currency="CNY"} ${left.toFixed()}\n`);
    // Spend today per model, bounded: at most 10 models and other.
    const perModel = metrics.split('\n').filter((l) => l.startsWith('tally_spend_today{') && l.includes(',model="'));
    expect(perModel.length).toBeGreaterThan(0);
    expect(perModel.length).toBeLessThanOrEqual(11);
    const table = (await tally(['forecast'], LIMITED_KEY)).stdout;
    expect(table).toMatch(/^Key's quota left +¥[\d,.]+ of ¥200\.00 granted$/m);
    expect(table).toMatch(/^Runway +[\d,]+ days?: the key's own quota runs out on \d{4}-\d{2}-\d{2} at (the key's own pace \(¥[\d.]+ a day\)|its daily limit of ¥5.00 at most)/m);
  });

  it('gates it with --min-key-remaining and --warn-key-remaining; a key without a quota is a warning that says why', async () => {
    const fail = await tally(['check', '--min-key-remaining', '1000'], LIMITED_KEY);
    expect(fail.code).toBe(5);
    expect(fail.stdout).toMatch(/^FAIL {2}min-key-remaining {2}actual ¥[\d,.]+, limit ¥1,000\.00 \(left of the key's own quota of ¥200\.00 granted\)$/m);
    const pass = await tally(['check', '--min-key-remaining', '1', '--warn-key-remaining', '1000', '--json'], LIMITED_KEY);
    expect(pass.code).toBe(0);
    expect(JSON.parse(pass.stdout).checks.map((c: { level: string }) => c.level)).toEqual(['pass', 'warn']);
    const none = await tally(['check', '--min-key-remaining', '1000'], DEMO_KEY);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('WARN  min-key-remaining  limit ¥1,000.00: not measured (does not apply: the key has an unlimited quota)\n');
  });

  it('shows it where the key is shown: balance, status, the statusline', async () => {
    expect((await tally(['balance'], BETA_BATCH_KEY)).stdout).toMatch(/^Key's quota left +¥[\d,.]+ of ¥500\.00 granted$/m);
    expect((await tally(['status'], LIMITED_KEY)).stdout).toMatch(/^Key's quota left +¥[\d,.]+ of ¥200\.00 granted$/m);
    const line = await tally(['statusline', '--format', '{key_left}'], LIMITED_KEY);
    expect(line.stdout).toMatch(/^¥1\d\d\.\d\d\n$/);
    expect((await tally(['statusline', '--format', '{key_left}'], DEMO_KEY)).stdout).toBe('—\n');
    expect((await tally(['balance', '--json'], DEMO_KEY)).stdout).not.toContain('key_quota');
  });

  it('never sets a quota in units not stated against yuan: shown as units, no runway from it, the gate a warning', async () => {
    const forecast = JSON.parse((await tally(['forecast', '--json'], LIMITED_KEY, raw)).stdout);
    expect(forecast.key_quota.currency).toBeNull();
    expect(forecast.runway_basis).toBe('balance');
    expect((await tally(['balance'], LIMITED_KEY, raw)).stdout).toMatch(/^Key's quota left +[\d,]+\.\d\d units \(unit not stated\) of 100,000,000\.00 units \(unit not stated\) granted$/m);
    const gate = await tally(['check', '--min-key-remaining', '10'], LIMITED_KEY, raw);
    expect(gate.code).toBe(0);
    expect(gate.stdout).toMatch(/^WARN {2}min-key-remaining {2}limit ¥10\.00: not measured \(does not apply: the token record states no unit/m);
    expect((await tally(['metrics'], LIMITED_KEY, raw)).stdout).not.toMatch(/^tally_key_remaining\{/m);
  });
});

describe("a key's quota that could not be read", () => {
  const limited = sandboxForFile(NOW, { accountLimit: 1000 });
  const run = (args: string[]) => runTally(args, { env: { ...limited.env, TALLY_API_KEY: LIMITED_KEY }, now: NOW });

  it('is "not read (rate limited)" in the views, never left out; a remembered failure is never served to a gate', async () => {
    const truth = JSON.parse((await run(['check', '--min-key-remaining', '1000', '--min-runway', '100000', '--json'])).stdout).checks;
    expect(truth.map((c: { level: string }) => c.level)).toEqual(['fail', 'fail']);
    // One 429 on the token record, seen by a view: remembered for a few minutes.
    limited.sandbox.faults.push({ kind: 'rate-limit', path: '/api/usage/token', times: 1 });
    const status = await runTally(['status'], { env: { ...limited.env, TALLY_API_KEY: LIMITED_KEY, TALLY_CONFIG_DIR: `${limited.state.path}/remembers` }, now: NOW });
    expect(status.stdout).toMatch(/^Key's quota +not read \(rate limited\)$/m);
    // The gate asks again (the endpoint answers now): the truth, not a pass on the balance alone.
    const gate = await runTally(['check', '--min-key-remaining', '1000', '--min-runway', '100000'], { env: { ...limited.env, TALLY_API_KEY: LIMITED_KEY, TALLY_CONFIG_DIR: `${limited.state.path}/remembers` }, now: NOW });
    expect(gate.code).toBe(5);
    expect(gate.stdout).toMatch(/^FAIL {2}min-runway/m);
    expect(gate.stdout).toMatch(/^FAIL {2}min-key-remaining/m);
  });

  it('fails a gate with the failure\'s exit code while the limit holds, or with --fail-open is not measured: never a pass', async () => {
    limited.sandbox.faults.push({ kind: 'rate-limit', path: '/api/usage/token', times: Number.POSITIVE_INFINITY });
    try {
      const held = await run(['check', '--min-key-remaining', '1', '--min-runway', '1']);
      expect(held.code).toBe(4);
      expect(held.stdout).toBe('');
      expect(held.stderr).toMatch(/the key's quota could not be read: .*rate limit/);
      const open = await run(['check', '--min-key-remaining', '1', '--min-runway', '1', '--fail-open', '--json']);
      expect(open.code).toBe(0);
      const checks = JSON.parse(open.stdout).checks;
      expect(checks.map((c: { level: string }) => c.level)).toEqual(['warn', 'warn']);
      expect(checks.every((c: { actual: unknown }) => c.actual === null)).toBe(true);
    } finally {
      limited.sandbox.faults.length = 0;
    }
  });
});

describe("a fleet's runway column", () => {
  it("marks the runway of a key whose own quota runs out first, and groups its digits", async () => {
    const { tempDir } = await import('../helpers.js');
    const dir = tempDir();
    try {
      const env = { TALLY_CONFIG_DIR: dir.path, TZ: 'UTC' };
      for (const [profile, key] of [['ltd', LIMITED_KEY], ['main', DEMO_KEY]] as const) {
        await runTally(['--profile', profile, 'login', '--base-url', file.sandbox.baseUrl, '--with-token', '--no-verify'], { env, input: key });
      }
      const doc = JSON.parse((await runTally(['--all-profiles', 'forecast', '--json'], { env, now: NOW })).stdout);
      const ltd = doc.profiles.find((p: { profile: string }) => p.profile === 'ltd').result;
      expect(ltd.runway_basis).toBe('key_quota');
      const table = (await runTally(['--all-profiles', 'forecast', '--wide'], { env, now: NOW })).stdout;
      const days = String(ltd.runway_days).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
      expect(table).toMatch(new RegExp(`^ltd .* ${days} \\(key quota\\)`, 'm'));
    } finally {
      dir.remove();
    }
  });
});
