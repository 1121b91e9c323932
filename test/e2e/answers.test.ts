// Forecast, status, statusline and charts: the built binary against a sandbox on a fixed clock.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { runTally, tempDir } from '../helpers.js';
import { cachePath } from '../../src/settings/cache-key.js';
import { KEYS } from '../../src/sandbox/seed.js';

const NOW = Date.UTC(2026, 10, 18, 14, 45); // a Wednesday afternoon
const state = tempDir();
let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 1000 });
  env = { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: 'Asia/Shanghai' };
});
afterAll(async () => {
  await sandbox.close();
  state.remove();
});
const tally = (args: string[], extra: NodeJS.ProcessEnv = {}) => runTally(args, { env: { ...env, ...extra }, now: NOW });

describe('tally forecast', () => {
  it('prints the forecast document: amounts as decimal strings, runway in whole days, dates on the day grid', async () => {
    const result = await tally(['forecast', '--json']);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(Object.keys(out)).toEqual(['currency', 'balance', 'basis', 'average_daily_spend', 'runway_days', 'runs_out_on', 'runway_basis', 'key_quota', 'month_to_date', 'projected_month_end', 'projected_month_end_range', 'today']);
    // The demo key has no quota of its own: the balance is what runs out.
    expect(out.runway_basis).toBe('balance');
    expect(out.key_quota).toBeNull();
    expect(Object.keys(out.basis)).toEqual(['days', 'start', 'end', 'start_iso', 'end_iso', 'spend']);
    expect(out.basis.days).toBe(7);
    expect(out.basis.end - out.basis.start).toBe(7 * 86400);
    expect(out.basis.end_iso).toBe('2026-11-18T00:00:00+08:00');
    expect(Object.keys(out.today)).toEqual(['used', 'limit', 'projected', 'limit_reached_at']);
    for (const amount of [out.balance, out.basis.spend, out.average_daily_spend, out.month_to_date, out.projected_month_end, out.today.used]) expect(amount).toMatch(/^\d+(\.\d+)?$/);
    expect(Number.isInteger(out.runway_days)).toBe(true);
    expect(out.runs_out_on).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // The average is the basis spend over seven days, to the ledger's eight places.
    expect(new Decimal(out.basis.spend).div(7).toDecimalPlaces(8, Decimal.ROUND_HALF_UP).eq(out.average_daily_spend)).toBe(true);
    expect(new Decimal(out.balance).div(out.average_daily_spend).floor().toNumber()).toBe(out.runway_days);
  });

  it('draws the figures as a panel', async () => {
    const result = await tally(['forecast', '--days', '14']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Average daily spend +¥[\d,]+\.\d{2} +\(the whole account's, the last 14 complete days, 2026-11-04 to 2026-11-17: ¥[\d,]+\.\d{2}\)$/m);
    expect(result.stdout).toMatch(/^Runway +[\d,]+ days: the balance runs out on \d{4}-\d{2}-\d{2} at this pace$/m);
  });
});

describe('tally check --min-runway', () => {
  it('fails when the balance lasts fewer days at the recent pace, and passes otherwise', async () => {
    const fail = await tally(['check', '--min-runway', '100000', '--json']);
    expect(fail.code).toBe(5);
    expect(JSON.parse(fail.stdout).checks[0]).toMatchObject({ name: 'min-runway', level: 'fail', unit: 'days', limit: '100000' });
    const warn = await tally(['check', '--warn-runway', '100000']);
    expect(warn.code).toBe(0);
    expect(warn.stdout).toMatch(/^WARN +warn-runway +actual [\d,]+ days, limit 100,000 days \(at the pace of the last 7 complete days\)$/m);
    expect((await tally(['check', '--min-runway', '1'])).code).toBe(0);
  });
});

describe('tally status', () => {
  it('answers in four requests issued together (the key\'s quota beside the three), and prints the status document', async () => {
    const before = sandbox.requests.length;
    const result = await tally(['status', '--json']);
    expect(result.code).toBe(0);
    const paths = sandbox.requests.slice(before).map((r) => r.path).sort();
    expect(paths.filter((p) => p !== '/api/usage/token/')).toEqual(['/v1/open/balance', '/v1/open/usage', '/v1/open/usage/models']);
    // The quota is remembered for a few minutes (the token endpoint's strict limit): asked at most once.
    expect(paths.filter((p) => p === '/api/usage/token/').length).toBeLessThanOrEqual(1);
    const out = JSON.parse(result.stdout);
    expect(Object.keys(out)).toEqual(['balance', 'usage', 'top_models', 'forecast', 'alert']);
    expect(out.balance.currency).toBe('CNY');
    expect(out.usage.buckets).toHaveLength(7);
    expect(out.usage.end - out.usage.start).toBe(7 * 86400);
    const sum = out.usage.buckets.reduce((acc: Decimal, b: { cost: string }) => acc.plus(b.cost), new Decimal(0));
    expect(sum.eq(out.usage.totals.cost)).toBe(true);
    expect(out.top_models.length).toBeGreaterThan(0);
    expect(Object.keys(out.forecast)).toContain('runway_days');
  });

  it('shows one screen: balance, today against the limit, a sparkline of the week, top models, runway', async () => {
    const result = await tally(['status']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Balance +¥[\d,]+\.\d{2} · lifetime spend ¥[\d,]+\.\d{2} · no active plan/m);
    expect(result.stdout).toMatch(/^Today +¥[\d,]+\.\d{2} of ¥50\.00 +[#.]{20} +[\d.]+%$/m);
    // The sandbox reports usage over time for the account and per model for the key: each row says whose.
    expect(result.stdout).toMatch(/^Last 7 days +[▁▂▃▄▅▆▇█]{7} +¥[\d,]+\.\d{2}, [\d,]+ calls \(whole account\)$/m);
    expect(result.stdout).toMatch(/^Top models +\S+ ¥[\d,]+\.\d{2}( · \S+ ¥[\d,]+\.\d{2})* \(this key\)$/m);
    expect(result.stdout).toMatch(/^Runway +[\d,]+ days/m);
  });
});

describe('tally statusline', () => {
  it('fetches once without a cache, then answers from the cache without a request; a stale one is marked and refreshed', async () => {
    const first = await tally(['statusline']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^¥[\d,]+\.\d{2} · today ¥[\d,]+\.\d{2}\/¥50\.00 \(\d+\.\d%\) · [\d,]+d\n$/);
    const cache = cachePath(state.path, 'statusline-default', new URL(sandbox.baseUrl), sandbox.demoKey);
    expect(existsSync(cache)).toBe(true);
    const before = sandbox.requests.length;
    const cached = await tally(['statusline', '--format', '{profile}: {balance} ({runway})']);
    expect(cached.stdout).toMatch(/^default: ¥[\d,]+\.\d{2} \([\d,]+d\)\n$/);
    expect(sandbox.requests.length).toBe(before);
    // Age the cache: the line comes at once, marked stale, and a background refresh rewrites it.
    const figures = JSON.parse(readFileSync(cache, 'utf8'));
    writeFileSync(cache, JSON.stringify({ ...figures, fetched_at: new Date(NOW - 3_600_000).toISOString(), balance: '1.00' }));
    const stale = await tally(['statusline']);
    expect(stale.stdout).toMatch(/^¥1\.00 · .* \(stale\)\n$/);
    for (let i = 0; i < 100 && JSON.parse(readFileSync(cache, 'utf8')).balance === '1.00'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(JSON.parse(readFileSync(cache, 'utf8')).balance).not.toBe('1.00');
  });

  it("never shows another key's or another gateway's figures: each has a cache of its own, and none holds the key", async () => {
    const dir = tempDir();
    // A gateway whose history ends a month earlier: another balance for the same key.
    const other = await startSandbox({ now: clockStartingAt(NOW - 30 * 86_400_000), dayOffsetMinutes: 480 });
    try {
      const ci = KEYS.find((k) => k.name === 'ci-runner')!.secret;
      const mine = { TALLY_CONFIG_DIR: dir.path };
      const demo = await tally(['statusline', '--format', '{limit}'], mine);
      expect(demo.stdout).toBe('¥50.00\n');
      const limited = await tally(['statusline', '--format', '{limit}'], { ...mine, TALLY_API_KEY: ci });
      expect(limited.stdout).toBe('¥5.00\n');
      // Each answered from its own cache now (the fast path), never from the other's.
      const requests = sandbox.requests.length;
      expect((await tally(['statusline', '--format', '{limit}'], mine)).stdout).toBe('¥50.00\n');
      expect((await tally(['statusline', '--format', '{limit}'], { ...mine, TALLY_API_KEY: ci })).stdout).toBe('¥5.00\n');
      expect(sandbox.requests.length).toBe(requests);
      // Another gateway with the same key: its own figures, and this one's again after it.
      const balanceOf = async (extra: NodeJS.ProcessEnv) => `¥${Number(JSON.parse((await tally(['balance', '--json'], extra)).stdout).balance).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}\n`;
      const [here, there] = [await balanceOf(mine), await balanceOf({ ...mine, TALLY_BASE_URL: other.baseUrl })];
      expect(here).not.toBe(there);
      expect((await tally(['statusline', '--format', '{balance}'], { ...mine, TALLY_BASE_URL: other.baseUrl })).stdout).toBe(there);
      expect((await tally(['statusline', '--format', '{balance}'], mine)).stdout).toBe(here);
      const files = readdirSync(join(dir.path, 'cache')).filter((f) => f.startsWith('statusline-'));
      expect(files).toHaveLength(3);
      for (const file of files) {
        const text = readFileSync(join(dir.path, 'cache', file), 'utf8');
        expect(text).not.toContain(sandbox.demoKey);
        expect(text).not.toContain(ci);
      }
    } finally {
      await other.close();
      dir.remove();
    }
  });

  it('shows no warning next to the prompt, never hangs on a FIFO, and prints no JavaScript internals for a placeholder', async () => {
    const dir = tempDir();
    try {
      const { chmodSync, mkfifoSync } = { ...(await import('node:fs')), mkfifoSync: (path: string) => execFileSync('mkfifo', [path]) };
      // Credentials others may read: every other command warns; a prompt does not.
      await tally(['login', '--base-url', sandbox.baseUrl, '--with-token', '--no-verify'], { TALLY_CONFIG_DIR: dir.path, TALLY_API_KEY: '', TALLY_BASE_URL: '' }).then(async () => {
        const { writeFileSync: write } = await import('node:fs');
        write(`${dir.path}/config.json`, JSON.stringify({ profiles: { default: { base_url: sandbox.baseUrl, api_key: sandbox.demoKey } } }));
      });
      chmodSync(`${dir.path}/config.json`, 0o644);
      const mine = { TALLY_CONFIG_DIR: dir.path, TALLY_API_KEY: '', TALLY_BASE_URL: '' };
      const line = await tally(['statusline', '--format', '{balance} {constructor} {__proto__} {toString}'], mine);
      expect(line.stderr).toBe('');
      expect(line.stdout).toMatch(/^¥[\d,]+\.\d{2} \{constructor\} \{__proto__\} \{toString\}\n$/);
      expect((await tally(['balance'], mine)).stderr).toContain('is readable by others');
      // The cache a FIFO: answered without it (no hang), and without a word.
      const cache = readdirSync(join(dir.path, 'cache')).find((f) => f.startsWith('statusline-'))!;
      rmSync(join(dir.path, 'cache', cache));
      mkfifoSync(join(dir.path, 'cache', cache));
      const fifo = await tally(['statusline'], mine);
      expect(fifo).toMatchObject({ code: 0, stderr: '' });
    } finally {
      dir.remove();
    }
  });

  it('says offline in a word and exits 0 when the gateway cannot be reached and nothing is cached; --check says why', async () => {
    const dir = tempDir();
    try {
      const down = { TALLY_CONFIG_DIR: dir.path, TALLY_BASE_URL: 'http://127.0.0.1:9' };
      const quiet = await tally(['statusline'], down);
      expect(quiet).toMatchObject({ code: 0, stdout: 'offline\n', stderr: '' });
      const check = await tally(['statusline', '--check'], down);
      expect(check.code).toBe(1);
      expect(check.stderr).toMatch(/cannot connect to 127\.0\.0\.1:9/);
    } finally {
      dir.remove();
    }
  });
});

describe('tally usage --chart', () => {
  it('draws the money metric over a 92-day hourly window in one screen, in yuan, plain on a pipe', async () => {
    const result = await tally(['usage', '--chart', '--bucket', 'hour', '--since', '92d']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^cost \(¥\) per \d+ hours \(each column adds them up\)$/);
    expect(lines.length).toBeLessThan(20);
    for (const line of lines.slice(0, -2)) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines[1]).toMatch(/^ +¥[\d,]+\.\d{2} [┼┤]/);
    expect(result.stdout).not.toMatch(/\u001b/);
  });

  it('charts another metric with --metric, and refuses one the buckets lack (exit 2)', async () => {
    const calls = await tally(['usage', '--chart', '--metric', 'calls']);
    expect(calls.stdout.split('\n')[0]).toBe('calls per day');
    const unknown = await tally(['usage', '--chart', '--metric', 'dollars']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('tally: --metric "dollars" is not a field of the usage buckets (they have: calls, cost)\n');
  });
});
