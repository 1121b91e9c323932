// Every profile at once, and spend in Prometheus: three sandboxes stand in for a team's gateways
// (one of them down), the fake gateways' logs say which credential went where, promtool checks
// the exposition, and a real Prometheus server scrapes `tally metrics --serve`.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { KEYS } from '../../src/sandbox/seed.js';
import { BIN, NODE, runTally, tempDir, skipWithout, stopChild } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
// Under CI the real parts are installed by .ci/run: these tests run there, never skip.
const realParts = has('promtool') && has('prometheus');
if (process.env.CI === 'true' && !realParts) throw new Error('CI needs promtool and prometheus (Debian package prometheus): .ci/run installs them');

let team: Sandbox;
let other: Sandbox;
const state = tempDir();
const env = () => ({ TALLY_CONFIG_DIR: state.path, TZ: 'UTC' });
const ci = KEYS.find((k) => k.name === 'ci-runner')!.secret;

beforeAll(async () => {
  team = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480 });
  other = await startSandbox({ now: clockStartingAt(NOW - 30 * 86_400_000) });
  const login = (profile: string, base: string, key: string) => runTally(['--profile', profile, 'login', '--base-url', base, '--with-token', '--no-verify'], { env: env(), input: key });
  await login('alpha', team.baseUrl, team.demoKey);
  await login('beta', other.baseUrl, ci);
  await login('down', 'http://127.0.0.1:9', team.demoKey);
  await runTally(['--profile', 'empty', 'config', 'set', 'base_url', 'https://gw.example.com'], { env: env() });
});
afterAll(async () => {
  await team.close();
  await other.close();
  state.remove();
});
const tally = (args: string[]) => runTally(args, { env: env(), now: NOW });

describe('--all-profiles', () => {
  it('answers for every profile: a row each, a total, the failed one with its error, the one without a credential skipped', async () => {
    const result = await tally(['--all-profiles', 'balance']);
    const rows = result.stdout.split('\n');
    // A failed and a skipped profile say why in a column of their own, never in a figure's.
    expect(rows[0]).toMatch(/^profile +balance +lifetime spend +today +daily limit +key left +error$/);
    // What a key's own quota leaves, beside the balance: — for a key without one.
    expect(rows.find((r) => r.startsWith('alpha'))).toMatch(/^alpha +¥[\d,]+\.\d\d +¥[\d,]+\.\d\d +¥[\d,.]+ +¥50\.00 +—$/);
    expect(rows.find((r) => r.startsWith('beta'))).toMatch(/ ¥5\.00 +¥[\d,]+\.\d\d$/);
    expect(rows.find((r) => r.startsWith('down'))).toContain('error: cannot connect to 127.0.0.1:9');
    expect(rows.find((r) => r.startsWith('empty'))).toContain('skipped: no credential');
    expect(rows.find((r) => r.startsWith('total'))).toMatch(/^total +¥[\d,]+\.\d\d /);
    // The first failed profile's code (1), after every result was shown.
    expect(result.code).toBe(1);
  });

  it('prints the JSON envelope, and never sends a profile\'s credential to another profile\'s gateway', async () => {
    const before = [team.requests.length, other.requests.length];
    const result = await tally(['--profiles', 'alpha,beta', 'forecast', '--json']);
    expect(result.code).toBe(0);
    const { profiles } = JSON.parse(result.stdout);
    expect(profiles.map((p: { profile: string; ok: boolean }) => [p.profile, p.ok])).toEqual([['alpha', true], ['beta', true]]);
    expect(Object.keys(profiles[0].result)).toContain('runway_days');
    const sent = (sandbox: Sandbox, from: number) => new Set(sandbox.requests.slice(from).map((r) => String(r.headers.authorization ?? '')).filter(Boolean));
    expect(sent(team, before[0]!)).toEqual(new Set([`Bearer ${team.demoKey}`]));
    expect(sent(other, before[1]!)).toEqual(new Set([`Bearer ${ci}`]));
  });

  it('exits 5 when a condition fails in any profile, and refuses commands that run for one', async () => {
    const check = await tally(['--profiles', 'alpha,beta', 'check', '--min-balance', '999999', '--json']);
    expect(check.code).toBe(5);
    expect((await tally(['--all-profiles', 'logs'])).code).toBe(2);
    expect((await tally(['--all-profiles', 'usage', '--by', 'model'])).code).toBe(2);
    expect((await tally(['--profiles', 'alpha,nope', 'balance'])).stderr).toContain('"nope"');
  });
});

describe('tally metrics', () => {
  it('prints the exposition: HELP and TYPE, every contract series, amounts as the service wrote them; a failed profile is tally_up 0 only', async () => {
    const result = await tally(['--all-profiles', 'metrics']);
    expect(result.code).toBe(0);
    const text = result.stdout;
    for (const name of ['tally_up', 'tally_balance', 'tally_lifetime_spend', 'tally_key_daily_cost_used', 'tally_key_daily_cost_limit', 'tally_spend_today', 'tally_runway_seconds', 'tally_key_remaining', 'tally_budget_spent', 'tally_budget_amount']) {
      expect(text).toContain(`# HELP ${name} `);
      expect(text).toContain(`# TYPE ${name} gauge`);
    }
    expect(text).toContain('tally_up{profile="down"} 0');
    expect(text).not.toMatch(/\{profile="down",/);
    const balance = JSON.parse((await runTally(['--profile', 'alpha', 'balance', '--json'], { env: env(), now: NOW })).stdout).balance;
    expect(text).toContain(`tally_balance{profile="alpha",currency="CNY"} ${balance}`);
    expect(text).toContain('tally_key_daily_cost_limit{profile="alpha",currency="CNY"} 50.00000000');
  });

  it.skipIf(skipWithout(realParts))('passes promtool check metrics with no remark', async () => {
    const text = (await tally(['--all-profiles', 'metrics'])).stdout;
    const lint = spawnSync('promtool', ['check', 'metrics'], { input: text });
    const remarks = `${lint.stdout}${lint.stderr}`.trim().split('\n').filter(Boolean);
    expect(remarks).toEqual([]);
    expect([0, 3]).toContain(lint.status);
  });

  it('writes a textfile for node_exporter atomically, readable by it', async () => {
    const dir = tempDir();
    try {
      const file = `${dir.path}/tally.prom`;
      expect((await tally(['--profile', 'alpha', 'metrics', '--textfile', file])).code).toBe(0);
      expect(readFileSync(file, 'utf8')).toContain('tally_up{profile="alpha"} 1');
      expect(statSync(file).mode & 0o777).toBe(0o644);
    } finally {
      dir.remove();
    }
  });

  it('serves /metrics, asking the gateway at most once a minute however often it is scraped, and stops cleanly on SIGTERM', async () => {
    const child = spawn(NODE, [BIN, '--profile', 'alpha', 'metrics', '--serve', '127.0.0.1:0'], { env: { PATH: process.env.PATH, ...env() }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await servedUrl(child);
      const first = await fetch(url);
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const body = await first.text();
      expect(body).toContain('tally_up{profile="alpha"} 1');
      expect(body).not.toContain(team.demoKey);
      const asked = team.requests.length;
      for (let i = 0; i < 5; i++) expect(await (await fetch(url)).text()).toBe(body);
      expect(team.requests.length).toBe(asked);
      expect((await fetch(url.replace('/metrics', '/'))).status).toBe(404);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
  });

  it.skipIf(skipWithout(realParts))('is scraped by a real Prometheus, whose query API returns the balance', async () => {
    const dir = tempDir();
    const exporter = spawn(NODE, [BIN, '--profile', 'alpha', 'metrics', '--serve', '127.0.0.1:0'], { env: { PATH: process.env.PATH, ...env() }, stdio: ['ignore', 'pipe', 'pipe'] });
    let prometheus: ChildProcess | undefined;
    try {
      const target = new URL(await servedUrl(exporter)).host;
      writeFileSync(`${dir.path}/prometheus.yml`, `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: tally\n    static_configs:\n      - targets: ['${target}']\n`);
      const port = freePort();
      prometheus = spawn('prometheus', [`--config.file=${dir.path}/prometheus.yml`, `--storage.tsdb.path=${dir.path}/data`, `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
      const balance = JSON.parse((await runTally(['--profile', 'alpha', 'balance', '--json'], { env: env(), now: NOW })).stdout).balance;
      let value: string | undefined;
      for (let i = 0; i < 150 && value === undefined; i++) {
        await new Promise((r) => setTimeout(r, 200));
        try {
          const answer = await (await fetch(`http://127.0.0.1:${port}/api/v1/query?query=tally_balance`)).json() as { data?: { result?: { value: [number, string] }[] } };
          value = answer.data?.result?.[0]?.value[1];
        } catch {
          // Not up yet.
        }
      }
      expect(Number(value)).toBeCloseTo(Number(balance), 6);
    } finally {
      await Promise.all([prometheus && stopChild(prometheus), stopChild(exporter)]);
      dir.remove();
    }
  }, 60_000);
});

function servedUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
      const found = /(http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(err);
      if (found) resolve(found[1]!);
    });
    child.on('close', () => reject(new Error(`the exporter stopped: ${err}`)));
  });
}

function freePort(): number {
  return Number(execFileSync(process.execPath, ['-e', "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"]).toString().trim());
}
