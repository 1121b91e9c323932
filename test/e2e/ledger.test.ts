// The ledger finance reconciles, on the sandbox's world in three namings: its sum is what usage by
// model says of the same window and scope, its rows are what the schema says, and a cron job that
// appends every day never writes a period twice.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { runTally } from '../helpers.js';
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

  it('appends each day once: a second run, or one a day later over an overlapping window, adds only what is new', async () => {
    const file = `${world.state.path}/ledger-${_name}.csv`;
    const first = await run(['export', '--since', '3d', '--csv', '--append', file]);
    expect(first.code, first.stderr).toBe(0);
    const once = readFileSync(file, 'utf8');
    expect(once.split('\r\n')[0]).toBe('date,zone,profile,gateway,scope,model,calls,input_tokens,output_tokens,amount,currency');
    const again = await run(['export', '--since', '3d', '--csv', '--append', file]);
    expect(again.stderr, again.stderr).toMatch(/^added 0 rows to .*; [34] periods were there already\n$/);
    expect(readFileSync(file, 'utf8')).toBe(once);
    const later = await run(['export', '--since', '3d', '--csv', '--append', file], NOW + DAY);
    expect(later.code).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\r\n');
    const days = lines.slice(1).map((l) => `${l.split(',')[0]} ${l.split(',')[5]}`);
    expect(new Set(days).size).toBe(days.length);
    expect(lines.filter((l) => l.startsWith('date,'))).toHaveLength(1);
    // The same in one file: the ledger of the longer window, as one export writes it.
    const whole = await run(['export', '--since', String(Math.floor((NOW - 3 * DAY) / 1000)), '--csv', '--no-header'], NOW + DAY);
    expect(whole.stdout.split('\r\n').filter(Boolean).slice(-3)).toEqual(lines.slice(-3));
  });

  it('refuses a file it cannot read as a ledger, and changes nothing in it', async () => {
    const file = `${world.state.path}/not-a-ledger-${_name}.csv`;
    writeFileSync(file, 'name,amount\r\nx,1\r\n');
    const result = await run(['export', '--csv', '--append', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`tally: --append ${file} has no date, profile and gateway columns in its first line; is it a CSV export with its header?\n`);
    expect(readFileSync(file, 'utf8')).toBe('name,amount\r\nx,1\r\n');
  });
});

