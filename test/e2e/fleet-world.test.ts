// A team's world: four profiles holding keys of two accounts on one gateway, a fifth on a gateway
// that hangs. Fleet totals count each account once and keys per key; a hanging profile fails in
// its own row without hiding the others; --fail-open never turns a profile into "pass".
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { BETA_BATCH_KEY, BETA_KEY, DEMO_KEY, LIMITED_KEY } from '../../src/sandbox/seed.js';
import { runTally, tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
let gateway: Sandbox;
let hanging: Server;
const state = tempDir();
const env = () => ({ TALLY_CONFIG_DIR: state.path, TZ: 'UTC' });
const tally = (args: string[]) => runTally(args, { env: env(), now: NOW, timeoutMs: 20_000 });

beforeAll(async () => {
  gateway = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 1000 });
  // Accepts connections and never answers.
  hanging = createServer(() => undefined);
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  const login = (profile: string, base: string, key: string) => runTally(['--profile', profile, 'login', '--base-url', base, '--with-token', '--no-verify'], { env: env(), input: key });
  await login('main', gateway.baseUrl, DEMO_KEY);
  await login('ltd', gateway.baseUrl, LIMITED_KEY);
  await login('other', gateway.baseUrl, BETA_KEY);
  await login('ci', gateway.baseUrl, BETA_BATCH_KEY);
});
afterAll(async () => {
  await gateway.close();
  hanging.closeAllConnections();
  hanging.close();
  state.remove();
});

describe('a fleet of keys on two accounts', () => {
  it('counts each account once in account-level totals, and per-key figures per key; says which profiles share an account', async () => {
    const result = await tally(['--profiles', 'main,ltd,other,ci', 'balance', '--json']);
    expect(result.code).toBe(0);
    const { profiles } = JSON.parse(result.stdout);
    const by = Object.fromEntries(profiles.map((p: { profile: string }) => [p.profile, p]));
    expect(by.main.account).toBe(by.ltd.account);
    expect(by.other.account).toBe(by.ci.account);
    expect(by.main.account).not.toBe(by.other.account);
    const accountBalance = new Decimal(by.main.result.balance).plus(by.other.result.balance);
    const today = profiles.reduce((sum: Decimal, p: { result: { api_key: { daily_cost_used: string } } }) => sum.plus(p.result.api_key.daily_cost_used), new Decimal(0));
    const table = (await tally(['--profiles', 'main,ltd,other,ci', 'balance', '--wide'])).stdout;
    const total = table.split('\n').find((r) => r.startsWith('total'))!;
    const money = (d: Decimal) => `¥${d.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
    expect(total).toContain(money(accountBalance));
    expect(total).toContain(money(today));
    expect(table).toMatch(/ltd and main share an account/);
    expect(table).toMatch(/ci and other share an account/);
  });

  it('counts an account once in usage and forecast totals too', async () => {
    const usage = JSON.parse((await tally(['--profiles', 'main,ltd,other,ci', 'usage', '--json'])).stdout).profiles;
    const spend = (p: { result: { totals: { cost: string } } }) => new Decimal(p.result.totals.cost);
    const once = spend(usage.find((p: { profile: string }) => p.profile === 'main')).plus(spend(usage.find((p: { profile: string }) => p.profile === 'other')));
    const table = (await tally(['--profiles', 'main,ltd,other,ci', 'usage', '--wide'])).stdout;
    const total = table.split('\n').find((r) => r.startsWith('total'))!;
    expect(total).toContain(`¥${once.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`);
  });

  it('ends a hanging profile at the deadline in its own row, and shows the others', async () => {
    await runTally(['--profile', 'stuck', 'login', '--base-url', `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`, '--with-token', '--no-verify'], { env: env(), input: DEMO_KEY });
    try {
      const result = await tally(['--all-profiles', '--timeout', '3', 'balance', '--json']);
      const { profiles } = JSON.parse(result.stdout);
      expect(profiles.map((p: { profile: string; ok: boolean }) => [p.profile, p.ok])).toEqual([['ci', true], ['ltd', true], ['main', true], ['other', true], ['stuck', false]]);
      expect(profiles[4].error.kind).toBe('timeout');
      expect(result.code).toBe(1);
      const check = await tally(['--all-profiles', '--timeout', '3', 'check', '--min-balance', '1', '--fail-open']);
      expect(check.code).toBe(0);
      const stuck = check.stdout.split('\n').find((r) => r.startsWith('stuck'))!;
      expect(stuck).toMatch(/not measured/);
      expect(stuck).not.toMatch(/\bpass\b/);
      expect(check.stderr).toMatch(/stuck.*(timed out|deadline|did not answer)/);
    } finally {
      await runTally(['--profile', 'stuck', 'logout'], { env: env() });
    }
  });
});
