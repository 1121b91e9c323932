// What a terminal shows: the built binary in a pseudo-terminal (util-linux `script`) of 80 and 200
// columns. Every line fits; a table too wide hides its least important columns and says so;
// colour follows the conventions; mistakes get a suggestion on a line of its own.
import { spawn } from 'node:child_process';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { binaryArgs, hasCommand, NODE, runTally, tempDir, skipWithout } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
const hasScript = hasCommand('script');

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/** Runs tally in a pseudo-terminal `columns` wide; what the terminal received, as lines. */
function inTerminal(args: string[], options: { columns: number; rows?: number; env?: NodeJS.ProcessEnv; interruptAfter?: number }): Promise<{ code: number | null; text: string; lines: string[] }> {
  const interrupt = options.interruptAfter ? ['timeout', '-s', 'INT', String(options.interruptAfter)] : [];
  const command = `stty cols ${options.columns} rows ${options.rows ?? 60}; exec ${[...interrupt, NODE, ...binaryArgs(args, NOW)].map(quote).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      // No pager unless a test asks for one (less would wait for a key).
      env: Object.fromEntries(Object.entries({ PATH: process.env.PATH, HOME: '/nonexistent-home', TERM: 'xterm-256color', TALLY_TEST_NOW: String(NOW), TZ: 'Asia/Shanghai', TALLY_PAGER: '', ...options.env }).filter(([, v]) => v !== undefined)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const text = out.replace(/\r\n/g, '\n');
      resolve({ code, text, lines: text.replace(/\n$/, '').split('\n') });
    });
  });
}

const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

let sandbox: Sandbox;
const state = tempDir();
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, naming: 'detailed', accountLimit: 1000 });
  env = { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey };
});
afterAll(async () => {
  await sandbox.close();
  state.remove();
});

describe.skipIf(skipWithout(hasScript))('in a terminal', () => {
  const commands = [
    ['--help'],
    ['usage', '--help'],
    ['balance'],
    ['status'],
    ['forecast'],
    ['usage'],
    ['usage', '--bucket', 'hour', '--since', '36h'],
    ['usage', '--by', 'model'],
    ['usage', '--by', 'model', '--bucket', 'week', '--top', '8'],
    ['logs', '--since', '1d'],
    ['models', '--prices'],
    ['pricing'],
    ['billing', '--compare'],
    ['check', '--min-balance', '100000', '--max-spend', '1', '--require-model', 'gpt-5'],
    ['auth', 'status'],
    ['usage', '--compare', 'previous'],
    ['usage', '--compare', 'previous', '--by', 'model', '--since', '30d'],
    ['anomalies'],
    ['anomalies', '--bucket', 'hour', '--since', '3d'],
    ['whatif', '--swap', 'claude-sonnet-4.5=deepseek-chat', '--swap', 'gpt-5-mini=gpt-5-nano'],
    ['report'],
    ['report', '--since', '2026-11-10', '--until', '2026-11-20'],
    ['export', '--since', '3d'],
    ['check', '--warn-anomalies', '--max-growth', '10'],
  ];

  it.each([80, 200])('fits every line of every command into %i columns', async (columns) => {
    for (const args of commands) {
      const { lines } = await inTerminal(args, { columns, env });
      const wide = lines.filter((line) => stringWidth(plain(line)) > columns);
      expect([args.join(' '), wide]).toEqual([args.join(' '), []]);
    }
  });

  it('hides the least important columns at 80, never the identifying one, says so, and hides nothing with --wide or at 200', async () => {
    const narrow = await inTerminal(['models', '--prices'], { columns: 80, env });
    const header = plain(narrow.lines[0]!);
    expect(header).toMatch(/^model +input ¥\/1M +output ¥\/1M +other prices \(¥\)$/);
    expect(plain(narrow.text).replace(/\s+/g, ' ')).toContain('columns hidden to fit 80 columns: cache read ¥/1M, reasoning, max output, context (--wide shows every column; --csv or --json every field)');
    expect(plain(narrow.text)).toMatch(/^sora-2 +— +— +video_price_per_second ¥0\.7000$/m);
    const all = await inTerminal(['models', '--prices'], { columns: 200, env });
    expect(plain(all.lines[0]!)).toMatch(/^model +context +max output +reasoning +input ¥\/1M +output ¥\/1M +cache read ¥\/1M +other prices \(¥\)$/);
    expect(plain(all.text)).not.toContain('hidden');
    const wide = await inTerminal(['models', '--prices', '--wide'], { columns: 80, env });
    expect(plain(wide.lines[0]!)).toBe(plain(all.lines[0]!));
    const logs = await inTerminal(['logs', '--since', '1d'], { columns: 80, env });
    expect(plain(logs.lines[0]!)).toMatch(/^id +created_at +model +.*cost \(¥\)/);
    expect(plain(logs.lines[0]!)).not.toContain('latency_ms');
  });

  it.each([
    [{}, true],
    [{ NO_COLOR: '1' }, false],
    [{ CLICOLOR: '0' }, false],
    [{ TERM: 'dumb' }, false],
    [{ NO_COLOR: '1', FORCE_COLOR: '1' }, false],
  ])('colours a terminal unless told not to (%j)', async (extra, coloured) => {
    const { text } = await inTerminal(['balance'], { columns: 100, env: { ...env, ...extra } });
    expect(/\u001b\[[0-9;]*m/.test(text)).toBe(coloured);
  });

  it('puts a suggestion on a line of its own and points at the right help', async () => {
    const command = await inTerminal(['balanc'], { columns: 80, env });
    expect(command.code).toBe(2);
    expect(plain(command.text)).toBe("tally: unknown command 'balanc'\nDid you mean balance?\nSee `tally --help`.\n");
    const flag = await inTerminal(['usage', '--bukcet', 'day'], { columns: 80, env });
    expect(plain(flag.text)).toBe("tally: unknown option '--bukcet'\nDid you mean --bucket?\nSee `tally usage --help`.\n");
  });

  it.each([[[] as string[]], [['--top', '3']]])('sets models side by side at 80 columns so every row adds up to its total (%j)', async (top) => {
    const { lines } = await inTerminal(['--no-color', 'usage', '--by', 'model', '--bucket', 'week', ...top], { columns: 80, env });
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    const header = lines[0]!.split(/\s{2,}/);
    expect(header[header.length - 1]).toBe('total (¥)');
    expect(header.some((h) => /^other \d+ \(¥\)$/.test(h))).toBe(true);
    const yuan = (cell: string) => Math.round(Number(cell.replace(/[¥,]/g, '')) * 100);
    const rows = lines.filter((line) => /^(\d{4}-\d{2}-\d{2} W\d{2}|total)\s/.test(line));
    expect(rows.length).toBeGreaterThan(8);
    for (const row of rows) {
      const cells = row.split(/\s{2,}/).slice(1).map(yuan);
      const total = cells.pop()!;
      // Each cell is rounded once from its exact sum: the row may differ from its total by rounding only.
      expect(Math.abs(cells.reduce((a, b) => a + b, 0) - total)).toBeLessThanOrEqual(cells.length);
    }
    if (top.length) expect(header.length).toBe(1 + 3 + 2);
  });

  it('pages a table taller than the terminal through $TALLY_PAGER, else $PAGER; not a short one, nor with --no-pager', async () => {
    const { readFileSync: read, existsSync: exists, rmSync: rm } = await import('node:fs');
    const file = `${state.path}/paged.txt`;
    const pager = `cat > '${file}'`;
    const tall = await inTerminal(['--no-color', 'usage', '--bucket', 'hour'], { columns: 100, rows: 12, env: { ...env, TALLY_PAGER: pager } });
    expect(tall.code).toBe(0);
    expect(plain(tall.text)).not.toContain('hour ');
    expect(read(file, 'utf8').split('\n')[0]).toMatch(/^hour +/);
    rm(file);
    await inTerminal(['--no-color', 'usage', '--bucket', 'hour'], { columns: 100, rows: 12, env: { ...env, TALLY_PAGER: undefined, PAGER: pager } });
    expect(exists(file)).toBe(true);
    rm(file);
    for (const [args, extra] of [[['--no-color', 'balance'], {}], [['--no-color', '--no-pager', 'usage', '--bucket', 'hour'], {}]] as const) {
      const direct = await inTerminal([...args], { columns: 100, rows: 12, env: { ...env, TALLY_PAGER: pager, ...extra } });
      expect(exists(file)).toBe(false);
      expect(plain(direct.text).length).toBeGreaterThan(50);
    }
    // A pager that cannot be started: the table is written directly.
    const missing = await inTerminal(['--no-color', 'usage', '--bucket', 'hour'], { columns: 100, rows: 12, env: { ...env, TALLY_PAGER: 'no-such-pager-here' } });
    expect(plain(missing.text)).toMatch(/^hour +/m);
  });

  it('says it waits when the headers came but the body stalls, as for any wait', async () => {
    const { createServer } = await import('node:http');
    const stalling = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"currency": "CNY", ');
      setTimeout(() => res.end('"balance": "1.00", "lifetime_spend": "0", "plan": {"has_active_plan": false}, "api_key": null}'), 1500);
    });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(stalling.address() as { port: number }).port}`;
    try {
      const shown = await inTerminal(['--no-color', 'balance'], { columns: 100, env: { TALLY_BASE_URL: base, TALLY_API_KEY: sandbox.demoKey, TALLY_CONFIG_DIR: state.path } });
      expect(shown.code).toBe(0);
      expect(shown.text).toMatch(/waiting for 127\.0\.0\.1:\d+…/);
      expect(plain(shown.text)).toMatch(/Balance +¥1\.00/);
    } finally {
      stalling.closeAllConnections();
      await new Promise((resolve) => stalling.close(resolve));
    }
  });

  it('says on a terminal what it waits for (a slow gateway, a rate limit), and clears it; nothing on a pipe', async () => {
    const { createServer } = await import('node:http');
    let calls = 0;
    const slow = createServer((req, res) => {
      calls++;
      const body = '{"currency": "CNY", "balance": "1.00", "lifetime_spend": "0", "plan": {"has_active_plan": false}, "api_key": null}';
      // First a rate limit, then an answer that takes a moment.
      if (calls === 1) return res.writeHead(429, { 'content-type': 'application/json', 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '0' }).end('{}');
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body), 1500);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(slow.address() as { port: number }).port}`;
    try {
      const extra = { TALLY_BASE_URL: base, TALLY_API_KEY: sandbox.demoKey, TALLY_CONFIG_DIR: state.path };
      const shown = await inTerminal(['--no-color', 'balance'], { columns: 100, env: extra });
      expect(shown.code).toBe(0);
      expect(shown.text).toContain('rate limited, retrying in 1 s (2/4)');
      expect(shown.text).toMatch(/waiting for 127\.0\.0\.1:\d+…/);
      // Each line was cleared (erase to the end of the line) before the result came.
      expect(shown.text).toContain('\r\u001b[K');
      expect(plain(shown.text)).toMatch(/Balance +¥1\.00/);
      calls = 0;
      const piped = await runTally(['balance'], { env: extra, now: NOW });
      expect(piped.code).toBe(0);
      expect(piped.stderr).toBe('');
    } finally {
      await new Promise((resolve) => slow.close(resolve));
    }
  });

  it('shows the progress of long work (pages of logs --all) on one line, cleared when done; nothing on a pipe', async () => {
    const { createServer } = await import('node:http');
    const slowPages = createServer((req, res) => {
      const page = Number(new URL(req.url!, 'http://x').searchParams.get('cursor') ?? 0);
      const body = `{"data": [{"id": "e${page}", "cost": "0.01"}], "next_cursor": ${page < 5 ? `"${page + 1}"` : 'null'}}`;
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body), 400);
    });
    await new Promise<void>((resolve) => slowPages.listen(0, '127.0.0.1', resolve));
    try {
      const extra = { TALLY_BASE_URL: `http://127.0.0.1:${(slowPages.address() as { port: number }).port}`, TALLY_API_KEY: sandbox.demoKey, TALLY_CONFIG_DIR: state.path };
      const shown = await inTerminal(['--no-color', 'logs', '--all', '--since', '1d'], { columns: 100, env: extra });
      expect(shown.code).toBe(0);
      expect(shown.text).toMatch(/\r\u001b\[Klog entries: \d+ records? in \d+ pages?, fetching page \d+…/);
      // The line is cleared before the table: the table's first line starts clean.
      expect(plain(shown.text)).toMatch(/\r\u001b\[K(\r\n)?id +cost/);
      const piped = await runTally(['logs', '--all', '--since', '1d'], { env: extra, now: NOW });
      expect(piped.stderr).toBe('');
    } finally {
      slowPages.closeAllConnections();
      await new Promise((resolve) => slowPages.close(resolve));
    }
  });

  it('redraws balance --watch in place until Ctrl-C (a line the launcher gives the whole program)', async () => {
    const { text } = await inTerminal(['balance', '--watch', '10'], { columns: 100, rows: 30, env, interruptAfter: 4 });
    expect(plain(text)).toMatch(/tally balance · every 10s · updated \d\d:\d\d:\d\d · Ctrl-C to stop/);
    expect(plain(text)).toMatch(/Balance +¥[\d,]+\.\d\d/);
    expect(plain(text)).toContain('tally: interrupted');
  });

  it('lists the global options in a command\'s help, wrapped to the terminal', async () => {
    const { text } = await inTerminal(['check', '--help'], { columns: 80, env });
    expect(plain(text)).toContain('Global Options:');
    expect(plain(text)).toMatch(/--timeout <seconds>/);
    expect(plain(text)).toMatch(/Exit codes: 0 ok, 1 service error, 2 usage, 3 auth, 4 rate limited, 5 check\s+failed \(run: stopped\s+past\s+the\s+limit\),\s+130\s+interrupted;\s+tally\s+run\s+otherwise\s+exits\s+with\s+its\s+command's\s+code\./);
  });
});

describe('colour on a pipe', () => {
  it.each([
    [{}, false],
    [{ FORCE_COLOR: '1' }, true],
    [{ CLICOLOR_FORCE: '1' }, true],
    [{ CLICOLOR_FORCE: '1', NO_COLOR: '1' }, false],
    [{ FORCE_COLOR: '0', CLICOLOR_FORCE: '1' }, false],
  ])('is %j → coloured: %s', async (extra, coloured) => {
    const result = await runTally(['balance'], { env: { ...env, NO_COLOR: undefined, ...extra }, now: NOW });
    expect(/\u001b\[[0-9;]*m/.test(result.stdout)).toBe(coloured);
  });
});
