// The ledger finance reconciles, on the sandbox's world in three namings: its sum is what usage by
// model says of the same window and scope, its rows are what the schema says, and a cron job that
// appends every day never writes a period twice.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { BIN, FIXED_CLOCK, NODE, runTally } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
const DAY = 86_400_000;
const worlds = {
  compact: sandboxForFile(NOW, { accountLimit: 5000 }),
  detailed: sandboxForFile(NOW, { accountLimit: 5000, naming: 'detailed', dayOffsetMinutes: 0, seed: 1 }),
  iso: sandboxForFile(NOW, { accountLimit: 5000, naming: 'iso', dayOffsetMinutes: -300, seed: 2 }),
};
const schema = JSON.parse(readFileSync(fileURLToPath(new URL('../../schemas/export.schema.json', import.meta.url)), 'utf8'));
const validate = new (Ajv2020 as unknown as typeof Ajv2020.default)({ allErrors: true, strict: false }).compile(schema);

describe.each(Object.entries(worlds))('tally export, %s world', (_name, world) => {
  const run = (args: string[], now = NOW) => runTally(args, { env: world.env, now, cwd: world.state.path });

  it.each([[['--since', '7d']], [['--month', '2026-10']], [['--since', '2d', '--bucket', 'hour']]])('%j: the ledger adds up to usage by model over the same window, row by row valid', async (window) => {
    const result = await run(['export', ...window, '--ndjson']);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(validate(row), JSON.stringify(validate.errors)).toBe(true);
    const table = await run(['export', ...window, '--json']);
    const doc = JSON.parse(table.stdout);
    expect(doc.rows).toEqual(rows);
    // The window the rows cover, from the first period to the last: what usage --by model sums there.
    const usage = JSON.parse((await run(['usage', '--by', 'model', ...window.filter((w) => w !== '--bucket' && w !== 'hour'), '--json'])).stdout);
    const ledger = rows.reduce((a: Decimal, r: { amount: string }) => a.plus(r.amount), new Decimal(0));
    const byModel = usage.records.reduce((a: Decimal, r: { cost: string }) => a.plus(r.cost), new Decimal(0));
    if (!window.includes('hour')) expect(ledger.toFixed()).toBe(byModel.toFixed());
    expect(new Set(rows.map((r: { scope: string }) => r.scope))).toEqual(new Set(['key']));
    // A spreadsheet's dates: days, or days and hours.
    expect(rows[0].date).toMatch(window.includes('hour') ? /^\d{4}-\d{2}-\d{2} \d{2}:00$/ : /^\d{4}-\d{2}-\d{2}$/);
  });

  const dataLines = (file: string) => readFileSync(file, 'utf8').split('\r\n').filter((l) => l !== '' && !l.startsWith('date,'));
  const dateOf = (line: string) => line.split(',')[0]!;

  it('appends each ended period once: a second run adds nothing, a run a day later adds the day that has ended since', async () => {
    const file = `${world.state.path}/ledger-${_name}.csv`;
    const first = await run(['export', '--since', '3d', '--csv', '--append', file]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/^added \d+ rows to .*; left (\d{4}-\d{2}-\d{2}) for a later run \(not ended yet\)\n/);
    const running = /left (\d{4}-\d{2}-\d{2})/.exec(first.stderr)![1]!;
    const once = readFileSync(file, 'utf8');
    expect(once.split('\r\n')[0]).toBe('date,zone,profile,gateway,scope,model,calls,input_tokens,output_tokens,amount,currency,complete');
    expect(dataLines(file).every((l) => l.endsWith(',true'))).toBe(true);
    expect(dataLines(file).some((l) => dateOf(l) === running)).toBe(false);
    const again = await run(['export', '--since', '3d', '--csv', '--append', file]);
    expect(again.stderr).toMatch(/^added 0 rows to .*; 2 periods were there already; left \d{4}-\d{2}-\d{2} for a later run \(not ended yet\)\n/);
    expect(readFileSync(file, 'utf8')).toBe(once);
    const later = await run(['export', '--since', '3d', '--csv', '--append', file], NOW + DAY);
    expect(later.code, later.stderr).toBe(0);
    const lines = dataLines(file);
    const keys = lines.map((l) => `${dateOf(l)} ${l.split(',')[5]}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(readFileSync(file, 'utf8').split('\r\n').filter((l) => l.startsWith('date,'))).toHaveLength(1);
    // The day that was running is there now, whole: as one export of the ended days writes it.
    const whole = await run(['export', '--since', String(Math.floor((NOW - 3 * DAY) / 1000)), '--csv', '--no-header'], NOW + DAY);
    const ended = whole.stdout.split('\r\n').filter((l) => l.endsWith(',true') && dateOf(l) >= dateOf(lines[0]!));
    expect(lines).toEqual(ended);
    expect(lines.some((l) => dateOf(l) === running)).toBe(true);
  });

  it('leaves a running day for later: `--since today` at noon writes none of it, the next night writes it whole (what usage says of that day)', async () => {
    const file = `${world.state.path}/running-${_name}.csv`;
    const noon = await run(['export', '--since', 'today', '--csv', '--append', file]);
    expect(noon.code, noon.stderr).toBe(0);
    expect(noon.stderr).toMatch(/^added 0 rows to .*; left (\d{4}-\d{2}-\d{2}) for a later run \(not ended yet\)\n/);
    const day = /left (\S+) for/.exec(noon.stderr)![1]!;
    const night = await run(['export', '--since', 'yesterday', '--csv', '--append', file], NOW + DAY);
    expect(night.code, night.stderr).toBe(0);
    const rows = dataLines(file);
    expect(new Set(rows.map(dateOf))).toEqual(new Set([day]));
    const usage = JSON.parse((await run(['usage', '--by', 'model', '--since', day, '--until', 'today', '--json'], NOW + DAY)).stdout);
    const byModel = usage.records.reduce((a: Decimal, r: Record<string, string>) => a.plus(r.cost ?? r.cost_yuan ?? r.amount ?? Object.values(r).find((v) => /^\d+\.\d+$/.test(String(v))) ?? 0), new Decimal(0));
    expect(rows.reduce((a, l) => a.plus(l.split(',')[9]!), new Decimal(0)).toFixed()).toBe(byModel.toFixed());
  });

  it('two runs at once write each period once, under one header', async () => {
    const file = `${world.state.path}/together-${_name}.csv`;
    const runs = await Promise.all([1, 2, 3, 4].map(() => run(['export', '--since', '5d', '--csv', '--append', file])));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text.split('\r\n').filter((l) => l.startsWith('date,'))).toHaveLength(1);
    const alone = await run(['export', '--since', '5d', '--until', 'today', '--csv', '--no-header']);
    expect(dataLines(file).sort()).toEqual(alone.stdout.split('\r\n').filter(Boolean).sort());
    expect(runs.reduce((a, r) => a + Number(/added (\d+) rows/.exec(r.stderr)![1]), 0)).toBe(dataLines(file).length);
  });

  it('a write that fails half-way (a file size limit, as a full disk) leaves the file as it was; the next run adds the rows', async () => {
    const file = `${world.state.path}/full-${_name}.csv`;
    expect((await run(['export', '--since', '2d', '--csv', '--append', file], NOW - 8 * DAY)).code).toBe(0);
    const before = readFileSync(file);
    const limited = await runLimited(['export', '--since', '10d', '--csv', '--append', file], Math.ceil(before.length / 1024) + 1);
    expect(limited.code, limited.stderr).toBe(2);
    expect(limited.stderr).toContain(`tally: --append ${file} cannot be written: the file would grow past the size this process may write (a file size limit); the file is as it was before this run\n`);
    expect(readFileSync(file).equals(before)).toBe(true);
    const next = await run(['export', '--since', '10d', '--csv', '--append', file]);
    expect(next.code, next.stderr).toBe(0);
    const keys = dataLines(file).map((l) => `${dateOf(l)} ${l.split(',')[5]}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.length).toBeGreaterThan(before.toString().split('\r\n').length);
  });

  it('never glues a row onto a last row that lacks only its line break, and refuses (untouched) one cut short', async () => {
    const file = `${world.state.path}/edited-${_name}.csv`;
    expect((await run(['export', '--since', '3d', '--csv', '--append', file], NOW - DAY)).code).toBe(0);
    const saved = readFileSync(file, 'utf8').replace(/\r\n$/, '');
    writeFileSync(file, saved);
    expect((await run(['export', '--since', '3d', '--csv', '--append', file])).code).toBe(0);
    const lines = readFileSync(file, 'utf8').split('\r\n').filter(Boolean);
    expect(lines.every((l) => l.split(',').length === 12)).toBe(true);
    expect(lines).toContain(saved.split('\r\n').at(-1));
    const cut = `${readFileSync(file, 'utf8')}2026-11-21,UTC+08:00,default,ht`;
    writeFileSync(file, cut);
    const refused = await run(['export', '--since', '3d', '--csv', '--append', file], NOW + DAY);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^tally: --append .* is not a ledger tally can add to: its last row \(line \d+\) is cut short \(4 of 12 cells\), as a full disk or an interrupted write leaves it; mend or remove that line, and run again; nothing was written\n$/);
    expect(readFileSync(file, 'utf8')).toBe(cut);
  });

  it('refuses a file it cannot read as a ledger, and changes nothing in it; an NDJSON line that is not a row too', async () => {
    const file = `${world.state.path}/not-a-ledger-${_name}.csv`;
    writeFileSync(file, 'name,amount\r\nx,1\r\n');
    const result = await run(['export', '--csv', '--append', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`tally: --append ${file} is not a ledger tally can add to: its first line is not tally's header (date,zone,profile,gateway,scope,model,calls,input_tokens,output_tokens,amount,currency,complete); tally appends only to a ledger it wrote; nothing was written\n`);
    expect(readFileSync(file, 'utf8')).toBe('name,amount\r\nx,1\r\n');
    const nd = `${world.state.path}/other-${_name}.ndjson`;
    expect((await run(['export', '--since', '2d', '--ndjson', '--append', nd])).code).toBe(0);
    const text = `${readFileSync(nd, 'utf8')}null\n`;
    writeFileSync(nd, text);
    const refused = await run(['export', '--since', '3d', '--ndjson', '--append', nd], NOW + DAY);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/is not a ledger tally can add to: line \d+ is not a ledger row \(a JSON object\); nothing was written\n$/);
    expect(readFileSync(nd, 'utf8')).toBe(text);
  });

  it('adds to its own headerless file with --no-header again', async () => {
    const file = `${world.state.path}/headerless-${_name}.csv`;
    expect((await run(['export', '--since', '2d', '--csv', '--no-header', '--append', file])).code).toBe(0);
    const later = await run(['export', '--since', '2d', '--csv', '--no-header', '--append', file], NOW + DAY);
    expect(later.code, later.stderr).toBe(0);
    expect(later.stderr).toMatch(/^added [1-9]\d* rows? /);
    expect(readFileSync(file, 'utf8').startsWith('date,')).toBe(false);
  });

  it('makes the folders of a new ledger, and refuses a link to nothing (as every report file does)', async () => {
    const file = `${world.state.path}/books-${_name}/2026/ledger.csv`;
    expect((await run(['export', '--since', '2d', '--csv', '--append', file])).code).toBe(0);
    expect(existsSync(file)).toBe(true);
    const link = `${world.state.path}/dangling-${_name}.csv`;
    symlinkSync(`${world.state.path}/nowhere-${_name}/ledger.csv`, link);
    const refused = await run(['export', '--since', '2d', '--csv', '--append', link]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/cannot be written: it is a symbolic link to nothing that exists/);
    expect(existsSync(`${world.state.path}/nowhere-${_name}`)).toBe(false);
    mkdirSync(`${world.state.path}/real-${_name}`);
    const real = `${world.state.path}/real-${_name}/ledger.csv`;
    writeFileSync(real, '');
    const followed = `${world.state.path}/followed-${_name}.csv`;
    symlinkSync(real, followed);
    expect((await run(['export', '--since', '2d', '--csv', '--append', followed])).code).toBe(0);
    expect(readFileSync(real, 'utf8').startsWith('date,')).toBe(true);
  });

  /** The binary under a file size limit (bash's ulimit -f, in KiB): a write past it fails as on a full disk. */
  function runLimited(args: string[], kib: number): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn('bash', ['-c', 'ulimit -f "$1"; shift; exec "$@"', 'bash', String(kib), NODE, '--require', FIXED_CLOCK, BIN, ...args], {
        env: { PATH: process.env.PATH, HOME: '/nonexistent-home', NO_COLOR: '1', TALLY_TEST_NOW: String(NOW), ...world.env },
        cwd: world.state.path,
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.stdin.on('error', () => undefined);
      child.stdin.end();
      child.on('close', (code) => resolve({ code, stderr }));
    });
  }
});

