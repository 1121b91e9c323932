// A team's world: four profiles holding keys of two accounts on one gateway, a fifth on a gateway
// that hangs. Fleet totals count each account once and keys per key; a hanging profile fails in
// its own row without hiding the others; --fail-open never turns a profile into "pass".
import { existsSync } from 'node:fs';
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

  it("prints the fleet status's runway right-aligned with its digits grouped, as a single profile's panel does", async () => {
    const table = (await tally(['--profiles', 'main,ltd,other,ci', 'status', '--wide'])).stdout.split('\n');
    const header = table.find((r) => r.includes('runway days'))!;
    expect(header).toBeDefined();
    const end = header.indexOf('runway days') + 'runway days'.length;
    const rows = table.filter((r) => /^(main|ltd|other|ci)\b/.test(r));
    expect(rows.length).toBe(4);
    for (const row of rows) {
      // The runway cell ends where its header ends (right-aligned), and a runway of thousands of days is grouped.
      const cell = /(\S+)\s*$/.exec(row.slice(0, end))![1]!;
      expect(row.slice(0, end).endsWith(cell), row).toBe(true);
      if (/^\d+$/.test(cell.replace(/,/g, ''))) expect(cell, row).toMatch(/^\d{1,3}(,\d{3})*\*?$/);
    }
  });

  it('counts one key stored under two profiles once in per-key totals, and says they are the same key', async () => {
    const own = { ...env(), TALLY_CONFIG_DIR: `${env().TALLY_CONFIG_DIR}/same-key` };
    const login = (profile: string, key: string) => runTally(['--profile', profile, 'login', '--base-url', gateway.baseUrl, '--with-token', '--no-verify'], { env: own, input: key });
    await login('main', DEMO_KEY);
    await login('main-copy', DEMO_KEY);
    await login('other', BETA_KEY);
    const run = (args: string[]) => runTally(args, { env: own, now: NOW, timeoutMs: 20_000 });
    const { profiles } = JSON.parse((await run(['--all-profiles', 'balance', '--json'])).stdout);
    const by = Object.fromEntries(profiles.map((p: { profile: string }) => [p.profile, p]));
    expect(by.main.key).toBe(by['main-copy'].key);
    expect(by.main.key).not.toBe(by.other.key);
    expect(JSON.stringify(profiles)).not.toContain(DEMO_KEY);
    const today = new Decimal(by.main.result.api_key.daily_cost_used).plus(by.other.result.api_key.daily_cost_used);
    const table = (await run(['--all-profiles', 'balance', '--wide'])).stdout;
    const total = table.split('\n').find((r) => r.startsWith('total'))!;
    expect(total).toContain(`¥${today.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`);
    expect(table).toMatch(/main and main-copy are the same key \(counted once\)/);
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

describe('a fleet on one origin', () => {
  it('never has more than 4 requests at a time in flight to it, however many profiles, and prints no listener warning', async () => {
    let inFlight = 0;
    let most = 0;
    const slow = createServer((req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight--;
        if (req.url === '/v1/open/balance') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"currency": "CNY", "balance": "10.00000000", "lifetime_spend": "1.00000000", "plan": {"has_active_plan": false}, "api_key": {"name": "k", "prefix": "k", "daily_cost_limit": null, "daily_cost_used": "0.10000000"}}');
        } else {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end('{"error": {"message": "no such path"}}');
        }
      }, 150);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const dir = tempDir();
    const own = { TALLY_CONFIG_DIR: dir.path, TZ: 'UTC' };
    try {
      const base = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
      for (let i = 0; i < 9; i++) await runTally(['--profile', `p${i}`, 'login', '--base-url', base, '--with-token', '--no-verify'], { env: own, input: `${DEMO_KEY}${i}` });
      const result = await runTally(['--all-profiles', 'balance'], { env: own, now: NOW });
      expect(result.code).toBe(0);
      expect(result.stdout.split('\n').filter((l) => /^p\d /.test(l))).toHaveLength(9);
      expect(most).toBeGreaterThan(1);
      expect(most).toBeLessThanOrEqual(4);
      expect(result.stderr).not.toMatch(/MaxListeners|Warning/);
    } finally {
      slow.close();
      dir.remove();
    }
  });
});

describe('metrics for a fleet with one profile whose stored settings are invalid', () => {
  it('reports that profile as tally_up 0 and serves the others (no crash)', async () => {
    const { readFileSync, writeFileSync } = await import('node:fs');
    await runTally(['--profile', 'broken', 'login', '--base-url', gateway.baseUrl, '--with-token', '--no-verify'], { env: env(), input: DEMO_KEY });
    const path = `${state.path}/config.json`;
    const before = readFileSync(path, 'utf8');
    const config = JSON.parse(before);
    config.profiles.broken.utc_offset = '+99:99';
    writeFileSync(path, JSON.stringify(config));
    try {
      const result = await tally(['--profiles', 'broken,main,ltd', 'metrics']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('tally_up{profile="broken"} 0\n');
      expect(result.stdout).toContain('tally_up{profile="main"} 1\n');
      expect(result.stdout).toContain('tally_up{profile="ltd"} 1\n');
      expect(result.stderr).not.toMatch(/ConfigError|at .*main\.cjs/);
    } finally {
      writeFileSync(path, before);
      await runTally(['--profile', 'broken', 'logout'], { env: env() });
    }
  });
});

describe('a fleet check for CI', () => {
  it('writes one JUnit file with every profile\'s cases, one Markdown summary, and annotations per profile', async () => {
    const { readFileSync, existsSync } = await import('node:fs');
    const { XMLParser, XMLValidator } = await import('fast-xml-parser');
    const dir = tempDir();
    try {
      await runTally(['--profile', 'zdown', 'login', '--base-url', 'http://127.0.0.1:9', '--with-token', '--no-verify'], { env: env(), input: DEMO_KEY });
      const junit = `${dir.path}/tally.xml`;
      const summary = `${dir.path}/summary.md`;
      const result = await runTally(['--profiles', 'main,ltd,zdown', 'check', '--min-balance', '1', '--max-daily-used', '0.01', '--junit', junit], { env: { ...env(), GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary }, now: NOW, timeoutMs: 20_000 });
      expect(result.code).toBe(5);
      const xml = readFileSync(junit, 'utf8');
      expect(XMLValidator.validate(xml)).toBe(true);
      const suites = new XMLParser({ ignoreAttributes: false }).parse(xml).testsuites.testsuite as { '@_name': string }[];
      expect(suites.map((s) => s['@_name'])).toEqual(['tally check (ltd)', 'tally check (main)', 'tally check (zdown)']);
      expect(xml).toContain('<error message="cannot connect to 127.0.0.1:9');
      // Annotations name the profile; the step summary is written once, with a profile column.
      expect(result.stdout).toMatch(/^::error title=tally check \(main\)::max-daily-used: actual /m);
      expect(result.stdout).toMatch(/^::error title=tally check \(zdown\)::not measured: /m);
      const written = readFileSync(summary, 'utf8');
      expect(written.match(/### tally check/g)).toHaveLength(1);
      expect(written).toContain('| result | profile | check | measured |');
      expect(written).toMatch(/\| ❌ fail \| ltd \| max-daily-used \| actual /);
      const md = await runTally(['--profiles', 'main,ltd', 'check', '--min-balance', '1', '--markdown'], { env: env(), now: NOW });
      expect(md.code).toBe(0);
      expect(md.stdout).toMatch(/^### tally check\n\n\| result \| profile \| check \| measured \|\n\| --- \| --- \| --- \| --- \|\n\| ✅ pass \| ltd \| min-balance \| actual ¥[\d,.]+, limit ¥1\.00 \|\n\| ✅ pass \| main \| min-balance \|/);
      expect(existsSync(`${dir.path}/tally.xml.tmp`)).toBe(false);
    } finally {
      await runTally(['--profile', 'zdown', 'logout'], { env: env() });
      dir.remove();
    }
  });
});

describe('the active profile in a prompt', () => {
  it('counts a statusline profile that could only say offline as not answered', async () => {
    const own = { ...env(), TALLY_CONFIG_DIR: `${env().TALLY_CONFIG_DIR}/offline-fleet` };
    await runTally(['--profile', 'up', 'login', '--base-url', gateway.baseUrl, '--with-token', '--no-verify'], { env: own, input: DEMO_KEY });
    await runTally(['--profile', 'down', 'login', '--base-url', 'http://127.0.0.1:9', '--with-token', '--no-verify'], { env: own, input: DEMO_KEY });
    const result = await runTally(['--all-profiles', 'statusline'], { env: own, now: NOW, timeoutMs: 20_000 });
    expect(result.stdout).toMatch(/^down +offline$/m);
    expect(result.stdout).toMatch(/2 profiles · 1 answered/);
  });

  it('is the profile the statusline shows, from its cache too (the fast path)', async () => {
    expect((await runTally(['auth', 'switch', 'ltd'], { env: env() })).code).toBe(0);
    try {
      const first = await tally(['statusline', '--format', '{profile} {limit}']);
      expect(first.stdout).toBe('ltd ¥5.00\n');
      const cached = await tally(['statusline', '--format', '{profile} {limit}']);
      expect(cached.stdout).toBe('ltd ¥5.00\n');
    } finally {
      await runTally(['auth', 'switch', 'main'], { env: env() });
    }
  });
});

describe('a prompt whose gateway hangs, with nothing cached', () => {
  it('waits once, says offline, and then answers at once within --max-age while refreshing in the background', async () => {
    const dir = tempDir();
    const port = (hanging.address() as AddressInfo).port;
    const own = { TALLY_CONFIG_DIR: dir.path, TALLY_BASE_URL: `http://127.0.0.1:${port}`, TALLY_API_KEY: DEMO_KEY };
    try {
      const first = await runTally(['statusline', '--timeout', '2'], { env: own, now: NOW, timeoutMs: 20_000 });
      expect(first.code).toBe(0);
      expect(first.stdout).toBe('offline\n');
      const again = await runTally(['statusline', '--debug'], { env: own, now: NOW, timeoutMs: 20_000 });
      expect(again.stdout).toBe('offline\n');
      // Not asked again in the foreground: the request log of this run is empty.
      expect(again.stderr).not.toMatch(/\bGET http/);
    } finally {
      dir.remove();
    }
  });
});

describe('reports and the ledger of a fleet', () => {
  it('report --profiles: a section per profile, and a total that counts each account once', async () => {
    const result = await tally(['--profiles', 'main,ltd,other,ci', 'report', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.profiles.map((p: { profile: string }) => p.profile)).toEqual(['main', 'ltd', 'other', 'ci']);
    const by = Object.fromEntries(doc.profiles.map((p: { profile: string }) => [p.profile, p]));
    expect(by.main.spend.current).toBe(by.ltd.spend.current);
    // The key with a quota of its own says what it leaves; the demo key has none.
    expect(by.ltd.now.key_quota).toMatchObject({ currency: 'CNY' });
    expect(by.main.now.key_quota).toBeNull();
    expect(doc.totals.accounts).toBe(2);
    expect(doc.totals.current).toBe(new Decimal(by.main.spend.current).plus(by.other.spend.current).toFixed());
    const md = await tally(['--profiles', 'main,other', 'report', '--markdown']);
    expect(md.stdout).toMatch(/^# tally report, 2 profiles\n\n\*\*Spend of 2 accounts, each counted once: ¥[\d,.]+ \(previous ¥[\d,.]+\)\*\*\n/);
    expect(md.stdout.match(/^## tally report: week \d{4}-\d{2}-\d{2} \u2013 \d{4}-\d{2}-\d{2}$/gm)).toHaveLength(2);
  });

  it('export --profiles: the rows of every profile, each with its profile, in one ledger', async () => {
    const result = await tally(['--profiles', 'main,other', 'export', '--since', '3d', '--ndjson']);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(new Set(rows.map((r: { profile: string }) => r.profile))).toEqual(new Set(['main', 'other']));
    for (const profile of ['main', 'other']) {
      const own = (await runTally(['--profile', profile, 'export', '--since', '3d', '--ndjson'], { env: env(), now: NOW })).stdout.trim().split('\n').map((l) => JSON.parse(l));
      expect(rows.filter((r: { profile: string }) => r.profile === profile)).toEqual(own);
    }
  });
});

describe('reports and the ledger with a profile whose gateway hangs', () => {
  it('shows every other profile within --timeout, names the one that failed, and exits with its code; the ledger writes nothing', async () => {
    await runTally(['--profile', 'stuck', 'login', '--base-url', `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`, '--with-token', '--no-verify'], { env: env(), input: DEMO_KEY });
    try {
      const report = await tally(['--profiles', 'main,ltd,other,ci,stuck', '--timeout', '3', 'report', '--json']);
      expect(report.code).toBe(1);
      const { profiles, totals } = JSON.parse(report.stdout);
      expect(profiles.map((p: { profile: string }) => p.profile)).toEqual(['main', 'ltd', 'other', 'ci', 'stuck']);
      expect(profiles[4].error.kind).toBe('timeout');
      expect(totals.accounts).toBe(2);
      const text = await tally(['--profiles', 'main,stuck', '--timeout', '3', 'report']);
      expect(text.stdout).toMatch(/^profile stuck: not reported \(timed out/m);
      const file = `${state.path}/fleet-ledger.csv`;
      const ledger = await tally(['--profiles', 'main,stuck', '--timeout', '3', 'export', '--csv', '--append', file]);
      expect(ledger.code).toBe(1);
      expect(ledger.stderr).toMatch(/profile "stuck" could not be exported, so nothing was written/);
      expect(existsSync(file)).toBe(false);
    } finally {
      await runTally(['--profile', 'stuck', 'logout'], { env: env() });
    }
  });
});

describe("a fleet keeps every digit of each profile's document", () => {
  it('a number no double holds (an id in the balance record) comes out of --json as the gateway sent it', async () => {
    const record = '{"currency":"CNY","balance":"12.50","lifetime_spend":"3.00","plan":{"has_active_plan":false},"api_key":{"name":"k","daily_cost_limit":null,"daily_cost_used":"0.10"},"account_no":123456789012345678901,"ratio":0.1000}';
    const server = createServer((req, res) => {
      if (req.url?.startsWith('/v1/open/balance')) res.writeHead(200, { 'content-type': 'application/json' }).end(record);
      else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not here"}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const own = tempDir();
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const [profile, key] of [['first', 'sk-fleet-digits-0001'], ['second', 'sk-fleet-digits-0002']]) {
        await runTally(['--profile', profile!, 'login', '--base-url', base, '--with-token', '--no-verify'], { env: { TALLY_CONFIG_DIR: own.path }, input: key });
      }
      const result = await runTally(['--all-profiles', 'balance', '--json'], { env: { TALLY_CONFIG_DIR: own.path, TZ: 'UTC' }, now: NOW });
      expect(result.code).toBe(0);
      expect(result.stdout.match(/"account_no": 123456789012345678901/g)).toHaveLength(2);
      expect(result.stdout.match(/"ratio": 0\.1000/g)).toHaveLength(2);
      const table = await runTally(['--all-profiles', 'balance', '--wide'], { env: { TALLY_CONFIG_DIR: own.path, TZ: 'UTC' }, now: NOW });
      expect(table.stdout).toMatch(/first\s+¥12\.50/);
    } finally {
      server.close();
      own.remove();
    }
  });
});
