// The fourth hardening round: report files, reads of special files, tally's own folders, the
// exporter as a server, locks, text from the gateway in CI reports, and budget inputs.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { type HostileGateway, againstHostile, balanceBody } from './hostile-gateway.js';
import { tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 21, 12);
const gateways: HostileGateway[] = [];
const dirs: { path: string; remove: () => void }[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
  dirs.splice(0).forEach((d) => d.remove());
});
const dir = () => {
  const d = tempDir();
  dirs.push(d);
  return d.path;
};
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
