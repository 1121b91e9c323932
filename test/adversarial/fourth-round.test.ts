// The fourth hardening round: report files, reads of special files, tally's own folders, the
// exporter as a server, locks, text from the gateway in CI reports, and budget inputs.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { afterEachTest } from '../support/cleanup.js';
import { againstHostile, balanceBody } from './hostile-gateway.js';
import { connect } from 'node:net';
import { BIN, NODE, stopChild } from '../helpers.js';
import { clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { cachePath } from '../../src/settings/cache-key.js';
import { runTally } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 21, 12);
const { gateways, dir } = afterEachTest();
const DAY = Date.UTC(2026, 10, 21) / 1000;
const plain = () =>
  againstHostile({ name: 'plain', routes: { '/v1/open/balance': { body: balanceBody() }, '/v1/open/usage': { body: `{"buckets": [{"t": ${DAY}, "cost": "1.00"}], "totals": {"cost": "1.00"}}` } } }, NOW, gateways);

/** A FIFO with a reader that collects what is written to it. */
function fifoWithReader(path: string): Promise<string> {
  execFileSync('mkfifo', [path]);
  const reader = spawn('cat', [path]);
  let text = '';
  reader.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return new Promise((resolve) => reader.on('close', () => resolve(text)));
}

describe('report files a user names', () => {
  it('writes into a FIFO in place (never replacing it), and creates missing folders, printing the results either way', async () => {
    const { run } = await plain();
    const base = dir();
    const fifo = `${base}/junit.fifo`;
    const received = fifoWithReader(fifo);
    const piped = await run(['check', '--min-balance', '1', '--junit', fifo]);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toMatch(/^PASS {2}min-balance/m);
    expect(await received).toContain('<testsuites name="tally check"');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    const nested = await run(['check', '--min-balance', '1', '--junit', `${base}/reports/ci/tally.xml`]);
    expect(nested.code).toBe(0);
    expect(readFileSync(`${base}/reports/ci/tally.xml`, 'utf8')).toContain('name="min-balance"');
  });

  it('refuses a folder, a FIFO nothing reads and a path through a file with exit 2 naming the cause, after printing the results; removes nothing', async () => {
    const { run } = await plain();
    const base = dir();
    mkdirSync(`${base}/a-folder`);
    execFileSync('mkfifo', [`${base}/lonely.fifo`]);
    writeFileSync(`${base}/plain-file`, 'x');
    for (const [path, cause] of [
      [`${base}/a-folder`, 'it is a folder'],
      [`${base}/lonely.fifo`, 'it is a pipe that nothing is reading'],
      [`${base}/plain-file/tally.xml`, 'a part of the path is not a folder'],
    ] as const) {
      const result = await run(['check', '--min-balance', '1', '--junit', path]);
      expect(result.code).toBe(2);
      expect(result.stdout).toMatch(/^PASS {2}min-balance/m);
      expect(result.stderr).toContain(`--junit ${path} cannot be written`);
      expect(result.stderr).toContain(cause);
      expect(result.stderr).not.toContain('TALLY_CONFIG_DIR');
    }
    expect(lstatSync(`${base}/a-folder`).isDirectory()).toBe(true);
    expect(lstatSync(`${base}/lonely.fifo`).isFIFO()).toBe(true);
    expect(readFileSync(`${base}/plain-file`, 'utf8')).toBe('x');
  });

  it('follows the same rule for metrics --textfile and mark --file; a link to a file replaces the file and keeps the link', async () => {
    const { run } = await plain();
    const base = dir();
    mkdirSync(`${base}/taken`);
    const textfile = await run(['metrics', '--textfile', `${base}/taken`]);
    expect(textfile.code).toBe(2);
    expect(lstatSync(`${base}/taken`).isDirectory()).toBe(true);
    const fifo = `${base}/metrics.fifo`;
    const received = fifoWithReader(fifo);
    const piped = await run(['metrics', '--textfile', fifo]);
    expect(piped.stderr).toBe('');
    expect(piped.code).toBe(0);
    expect(await received).toContain('# TYPE tally_up gauge');
    writeFileSync(`${base}/real.json`, 'old');
    symlinkSync(`${base}/real.json`, `${base}/link.json`);
    const linked = await run(['mark', '--file', `${base}/link.json`]);
    expect(linked.stderr).toBe('');
    expect(linked.code).toBe(0);
    expect(lstatSync(`${base}/link.json`).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(`${base}/real.json`, 'utf8')).name).toBe('run');
    const nested = await run(['mark', '--file', `${base}/new/deeper/mark.json`]);
    expect(nested.code).toBe(0);
    expect(existsSync(`${base}/new/deeper/mark.json`)).toBe(true);
  });
});

/** Raw requests no well-behaved client sends. */
const FUZZ = [
  'GET http://[ HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET http://[::1 HTTP/1.1\r\nHost: x\r\n\r\n',
  'BREW /metrics HTTP/1.1\r\nHost: x\r\n\r\n',
  `GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`,
  'GET /%zz%00 HTTP/1.1\r\nHost: x\r\n\r\n',
  '\u0000\u0001\u0002 garbage\r\n\r\n',
  'GET / HTTP/9.9\r\n\r\n',
  'GET //// HTTP/1.1\r\nHost: x\r\n\r\n',
  'POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello',
  'GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
  'GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
  'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n',
];

/** Sends bytes as they are; the first line of the answer (or "closed"). */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    const timer = setTimeout(() => socket.destroy(), 3000);
    socket.on('data', (d) => (got += d.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(got.split('\r\n', 1)[0] || 'closed');
    });
    socket.on('error', () => undefined);
    socket.write(text, 'latin1', () => socket.end());
  });
}

describe('servers tally runs', () => {
  it('metrics --serve answers every malformed request with a status and keeps serving /metrics', async () => {
    const sandbox = await startSandbox({ now: clockStartingAt(NOW) });
    const state = dir();
    const exporter = spawn(NODE, [BIN, 'metrics', '--serve', '127.0.0.1:0'], { env: { PATH: process.env.PATH, TALLY_CONFIG_DIR: state, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let err = '';
        exporter.stderr.on('data', (d) => {
          err += d;
          const found = /127\.0\.0\.1:(\d+)\/metrics/.exec(err);
          if (found) resolve(Number(found[1]));
        });
        exporter.on('close', () => reject(new Error(`the exporter stopped: ${err}`)));
      });
      for (const request of FUZZ) {
        const answer = await raw(port, request);
        expect([request.slice(0, 30), answer]).toEqual([request.slice(0, 30), expect.stringMatching(/^HTTP\/1\.[01] \d{3}|^closed$/)]);
        const scrape = await fetch(`http://127.0.0.1:${port}/metrics`);
        expect(scrape.status).toBe(200);
        expect(await scrape.text()).toContain('tally_up{profile="default"} 1');
      }
      expect(exporter.exitCode).toBeNull();
    } finally {
      // Its folder is removed after the test: only once it has exited (a scrape may still be writing its cache).
      await stopChild(exporter);
      await sandbox.close();
    }
  }, 60_000);

  it('the sandbox answers every malformed request with a status and keeps serving', async () => {
    const sandbox = await startSandbox({ now: clockStartingAt(NOW) });
    try {
      const port = Number(new URL(sandbox.baseUrl).port);
      for (const request of FUZZ) {
        expect(await raw(port, request)).toMatch(/^HTTP\/1\.[01] \d{3}|^closed$/);
        const balance = await fetch(`${sandbox.baseUrl}/v1/open/balance`, { headers: { authorization: `Bearer ${sandbox.demoKey}` } });
        expect(balance.status).toBe(200);
      }
    } finally {
      await sandbox.close();
    }
  }, 30_000);
});

describe('files tally reads, and its own folders', () => {
  it('never waits on a FIFO: TALLY_CA_FILE, the catalog listing cache, $GITHUB_STEP_SUMMARY', async () => {
    const sandbox = await startSandbox({ now: clockStartingAt(NOW) });
    const state = dir();
    const env = { TALLY_CONFIG_DIR: state, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey };
    try {
      execFileSync('mkfifo', [`${state}/ca.fifo`]);
      const ca = await runTally(['balance'], { env: { ...env, TALLY_CA_FILE: `${state}/ca.fifo` }, now: NOW, timeoutMs: 10_000 });
      expect(ca.code).toBe(2);
      expect(ca.stderr).toContain('is not a regular file (a FIFO)');
      mkdirSync(`${state}/cache`, { recursive: true });
      const listing = cachePath(state, 'pricing', new URL(sandbox.baseUrl), undefined, '.listing.json');
      execFileSync('mkfifo', [listing]);
      const pricing = await runTally(['pricing', '--json'], { env, now: NOW, timeoutMs: 10_000 });
      expect(pricing.signal).toBeNull();
      expect(pricing.code).not.toBe(130);
      execFileSync('mkfifo', [`${state}/summary.fifo`]);
      const check = await runTally(['check', '--min-balance', '1'], { env: { ...env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: `${state}/summary.fifo` }, now: NOW, timeoutMs: 10_000 });
      expect(check.code).toBe(0);
      expect(check.stderr).toContain('could not append to $GITHUB_STEP_SUMMARY');
    } finally {
      await sandbox.close();
    }
  }, 40_000);

  it('never writes into or prunes a folder its own kept-versions folder links to', async () => {
    const sandbox = await startSandbox({ now: clockStartingAt(NOW), catalogChurn: true });
    const state = dir();
    const elsewhere = dir();
    writeFileSync(`${elsewhere}/1.json`, 'keep me');
    const env = { TALLY_CONFIG_DIR: state, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey };
    try {
      mkdirSync(`${state}/cache`, { recursive: true });
      symlinkSync(elsewhere, cachePath(state, 'pricing', new URL(sandbox.baseUrl), undefined, '.versions'));
      for (let i = 0; i < 3; i++) expect((await runTally(['pricing', '--refresh', '--json'], { env, now: NOW })).code).toBe(0);
      expect(execFileSync('ls', [elsewhere]).toString().trim().split('\n')).toEqual(['1.json']);
      expect(readFileSync(`${elsewhere}/1.json`, 'utf8')).toBe('keep me');
    } finally {
      await sandbox.close();
    }
  });

  it('replaces a kept TLS key that does not fit its certificate, as an expired pair', async () => {
    const { sandboxTls } = await import('../../src/sandbox/tls.js');
    const one = dir();
    const two = dir();
    await sandboxTls(one);
    await sandboxTls(two);
    writeFileSync(`${one}/sandbox/tls-key.pem`, readFileSync(`${two}/sandbox/tls-key.pem`));
    const pair = await sandboxTls(one);
    const { X509Certificate, createPrivateKey } = await import('node:crypto');
    expect(new X509Certificate(pair.cert).checkPrivateKey(createPrivateKey(pair.key))).toBe(true);
    const sandbox = await startSandbox({ tls: pair });
    await sandbox.close();
  });
});

describe('locks', () => {
  it('never takes over the lock of a live holder, however old; gives up naming it', async () => {
    const { withLockFile } = await import('../../src/settings/files.js');
    const { utimesSync } = await import('node:fs');
    const base = dir();
    const holder = spawn('sleep', ['30']);
    try {
      writeFileSync(`${base}/x.lock`, String(holder.pid));
      const old = new Date(Date.now() - 3_600_000);
      utimesSync(`${base}/x.lock`, old, old);
      let ran = false;
      await expect(withLockFile(`${base}/x.lock`, () => void (ran = true), { waitMs: 300 })).rejects.toThrow(`held by tally process ${holder.pid}, still running`);
      expect(ran).toBe(false);
      expect(readFileSync(`${base}/x.lock`, 'utf8')).toBe(String(holder.pid));
    } finally {
      holder.kill();
    }
  });

  it("takes over a dead holder's lock and a FIFO in its place without blocking", async () => {
    const { withLockFile } = await import('../../src/settings/files.js');
    const base = dir();
    writeFileSync(`${base}/dead.lock`, '999999999');
    let ran = 0;
    await withLockFile(`${base}/dead.lock`, () => void ran++, { waitMs: 300 });
    execFileSync('mkfifo', [`${base}/fifo.lock`]);
    await withLockFile(`${base}/fifo.lock`, () => void ran++, { waitMs: 300 });
    expect(ran).toBe(2);
  });

  it('waits on a lock it cannot remove without spinning, ends at the deadline or on Ctrl-C, and says what it waits for', async () => {
    const { withLockFile } = await import('../../src/settings/files.js');
    const base = dir();
    mkdirSync(`${base}/stuck.lock`);
    const said: string[] = [];
    const started = Date.now();
    await expect(withLockFile(`${base}/stuck.lock`, () => undefined, { waitMs: 600, onWait: (m) => said.push(m) })).rejects.toThrow(/cannot be removed/);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(said[0]).toContain(`waiting for ${base}/stuck.lock`);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('interrupted')), 100);
    await expect(withLockFile(`${base}/stuck.lock`, () => undefined, { waitMs: 60_000, signal: controller.signal })).rejects.toThrow('interrupted');
  });
});

describe('text from the gateway in CI reports', () => {
  const hostile = '![x](http://evil.example/p.png) @admin #1 <img src=x onerror=alert(1)> [link](http://evil.example) **bold** | cell\r::error::injected\nwww.evil.example';
  const gateway = () => againstHostile({ name: 'markdown', routes: { '/v1/open/balance': { status: 500, body: JSON.stringify({ error: hostile }) } } }, NOW, gateways);

  it('is escaped for Markdown (and the HTML GitHub renders in it): no image, link, mention, tag or broken row', async () => {
    const { run } = await gateway();
    const result = await run(['check', '--min-balance', '1', '--fail-open', '--markdown']);
    expect(result.code).toBe(0);
    const row = result.stdout.split('\n').find((l) => l.includes('min-balance'))!;
    expect(row).toBeDefined();
    expect(result.stdout.split('\n').filter((l) => l.startsWith('|'))).toHaveLength(3);
    for (const live of ['![', '](', '<img', '@admin', '**bold', 'http://', 'www.evil']) expect(row).not.toContain(live);
    expect(row).not.toMatch(/[^\\]\| cell/);
    expect(row).toContain('&lt;img');
    expect(row).toContain('&#64;admin');
    expect(row.endsWith(' |')).toBe(true);
  });

  it('is escaped for workflow commands: the gateway cannot add its own, in annotations or the summary', async () => {
    const { run } = await gateway();
    const summary = `${dir()}/summary.md`;
    const result = await run(['check', '--min-balance', '1', '--fail-open'], { env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary } });
    expect(result.code).toBe(0);
    for (const line of `${result.stdout}${result.stderr}`.split(/\r|\n/)) expect(line).not.toMatch(/^::error::injected/);
    // The one annotation holds the whole message on its line.
    expect(result.stdout).toMatch(/^::warning title=tally check::min-balance: .*::error::injected.*www/m);
    expect(readFileSync(summary, 'utf8')).not.toContain('\r');
  });
});

describe('fields read back from a mark file', () => {
  it.each([
    ['at_iso', '2026-11-21T12:00:00+00:00\n::error::pwned'],
    ['at_iso', '![x](http://evil.example/x.png)'],
    ['at_iso', '2026-11-21T13:00:00+00:00'],
    ['currency', '$$$'],
    ['name', 'Run Now'],
    ['credential_id', '<b>x</b>'],
  ])('refuses a mark whose %s was changed to %j (exit 2, nothing of it printed)', async (field, value) => {
    const { run } = await plain();
    const file = `${dir()}/mark.json`;
    expect((await run(['mark', '--file', file])).code).toBe(0);
    const mark = JSON.parse(readFileSync(file, 'utf8'));
    mark[field] = value;
    writeFileSync(file, JSON.stringify(mark));
    const result = await run(['check', '--max-run-spend', '5', '--mark-file', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a mark tally wrote');
    expect(result.stdout).toBe('');
  });
});

describe('budget inputs', () => {
  it.each([
    [':Asia/Shanghai', 'Asia/Shanghai'],
    ['/usr/share/zoneinfo/Asia/Shanghai', 'Asia/Shanghai'],
    ['CST-8', '+08:00'],
    ['UTC', 'UTC'],
  ])('stores the zone in effect when TZ is %j, never UTC by default (%s)', async (tz, stored) => {
    const state = dir();
    const result = await runTally(['budget', 'set', 'z', '--amount', '5', '--period', 'day'], { env: { TALLY_CONFIG_DIR: state, TZ: tz } });
    expect(result.code).toBe(0);
    expect(JSON.parse(readFileSync(`${state}/config.json`, 'utf8')).profiles.default.budgets.z.zone).toBe(stored);
  });

  it.each([['0x1c'], ['1e1'], [' 7'], ['7.0'], ['+7']])('refuses --starts %j for a month (exit 2, nothing stored)', async (starts) => {
    const state = dir();
    const result = await runTally(['budget', 'set', 'm', '--amount', '5', '--period', 'month', '--starts', starts], { env: { TALLY_CONFIG_DIR: state } });
    expect(result.code).toBe(2);
    expect(existsSync(`${state}/config.json`)).toBe(false);
  });

  it('stores a zone without the white space around it, and accepts --budget NAME:1000%', async () => {
    const { run, env } = await plain();
    expect((await run(['budget', 'set', 'w', '--amount', '5', '--period', 'week', '--tz', 'Asia/Shanghai  '])).code).toBe(0);
    expect(JSON.parse(readFileSync(`${env.TALLY_CONFIG_DIR}/config.json`, 'utf8')).profiles.default.budgets.w.zone).toBe('Asia/Shanghai');
    expect((await run(['check', '--budget', 'w:1000%'])).stderr).not.toContain('is not NAME');
  });
});
