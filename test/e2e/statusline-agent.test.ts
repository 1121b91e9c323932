// tally statusline inside Claude Code: the session JSON its statusLine command sends on stdin
// (every documented field) gives {model}, {dir} and {session}, the key's spend since the
// session's transcript began, equal to the per-call log's sum over that window; the next run
// answers from the cache without a request; a session the cache does not hold yet is fetched in
// the background; malformed input is the plain line; text from the input never reaches the
// terminal as an escape; a pipe that never delivers does not hold the line up.
import { manualText } from '../support/manual.js';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { binaryArgs, FIXED_CLOCK, NODE, runProcess, runTally, tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30);
const STARTED = NOW - 30 * 3600_000;
const state = tempDir();
const work = tempDir();
let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
const transcript = join(work.path, 'session.jsonl');

/** What Claude Code sends (its documented fields), for a session id and a model name. */
function sessionJson(id: string, model = 'Opus'): string {
  return JSON.stringify({
    hook_event_name: 'Status',
    session_id: id,
    transcript_path: transcript,
    cwd: '/home/dev/projects/shop',
    model: { id: 'claude-opus-4-1', display_name: model },
    workspace: { current_dir: '/home/dev/projects/shop', project_dir: '/home/dev/projects/shop' },
    version: '1.0.80',
    output_style: { name: 'default' },
    cost: { total_cost_usd: 0.01234, total_duration_ms: 45000, total_api_duration_ms: 2300, total_lines_added: 156, total_lines_removed: 23 },
    exceeds_200k_tokens: false,
    context_window: { context_window_size: 200000, current_usage: { input_tokens: 8500, output_tokens: 1200 } },
    a_field_from_a_later_version: { anything: [1, 2] },
  });
}

beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000 });
  // The background refresh is another process: it runs on the test's clock too.
  env = { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: 'UTC', TALLY_TEST_NOW: String(NOW), NODE_OPTIONS: `--require ${FIXED_CLOCK}` };
  // A transcript as Claude Code writes it: a summary line, then timestamped entries.
  const entry = (t: number, type: string) => JSON.stringify({ type, timestamp: new Date(t).toISOString(), sessionId: 'one', message: { role: type } });
  writeFileSync(transcript, [JSON.stringify({ type: 'summary', summary: 'Fix the cart' }), entry(STARTED, 'user'), entry(STARTED + 5000, 'assistant'), ''].join('\n'));
});
afterAll(async () => {
  await sandbox.close();
  state.remove();
  work.remove();
});
const tally = (args: string[], input?: string) => runTally(args, { env, now: NOW, input });

/** The key's spend over the session, as `tally logs` adds it up. */
async function loggedSpend(): Promise<Decimal> {
  const logs = await tally(['logs', '--since', new Date(STARTED).toISOString(), '--until', 'now', '--all', '--json']);
  const doc = JSON.parse(logs.stdout) as Record<string, unknown>;
  const records = Object.values(doc).find(Array.isArray) as { cost: string }[];
  expect(records.length).toBeGreaterThan(3);
  return records.reduce((sum, r) => sum.plus(r.cost), new Decimal(0));
}

describe('tally statusline with Claude Code session JSON on stdin', () => {
  it("shows the model and the key's spend since the session began, then answers from the cache", async () => {
    const first = await tally(['statusline'], sessionJson('7f3e1c2a-0b9d-4e58-a1c6-2d4f6e8a9b01'));
    expect(first.code).toBe(0);
    const spent = await loggedSpend();
    const session = `session ¥${spent.toFixed(2)} (key)`;
    expect(first.stdout).toMatch(new RegExp(`^Opus · ${session.replace(/[()]/g, '\\$&')} · ¥[\\d,]+\\.\\d\\d · today `));
    expect(first.stdout.split('\n')).toHaveLength(2);
    // From the cache: the same line, and not one request.
    const asked = sandbox.requests.length;
    const again = await tally(['statusline'], sessionJson('7f3e1c2a-0b9d-4e58-a1c6-2d4f6e8a9b01'));
    expect(again.stdout).toBe(first.stdout);
    expect(sandbox.requests.length).toBe(asked);
    const custom = await tally(['statusline', '--format', '{model} in {dir}: {session}'], sessionJson('7f3e1c2a-0b9d-4e58-a1c6-2d4f6e8a9b01'));
    expect(custom.stdout).toBe(`Opus in shop: ${session}\n`);
    expect(sandbox.requests.length).toBe(asked);
    // The cache holds the figure with its window start, never the credential.
    const file = readdirSync(join(state.path, 'cache')).find((f) => f.startsWith('statusline-sessions-'))!;
    const kept = readFileSync(join(state.path, 'cache', file), 'utf8');
    expect(JSON.parse(kept).sessions[0]).toMatchObject({ id: '7f3e1c2a-0b9d-4e58-a1c6-2d4f6e8a9b01', started: Math.floor(STARTED / 1000), spent: spent.toFixed() });
    expect(kept).not.toContain(sandbox.demoKey);
  });

  it('fetches a session the cache does not hold in the background, and shows it once fetched', async () => {
    const id = 'second-session';
    const before = await tally(['statusline'], sessionJson(id, 'Sonnet'));
    // Figures from the cache at once; the session's spend is not known yet: not shown, never ¥0.
    expect(before.stdout).toMatch(/^Sonnet · ¥[\d,]+\.\d\d · today /);
    let line = '';
    for (let i = 0; i < 100 && !line.includes('session ¥'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      line = (await tally(['statusline'], sessionJson(id, 'Sonnet'))).stdout;
    }
    expect(line).toMatch(/^Sonnet · session ¥[\d,]+\.\d\d \(key\) · /);
  });

  it('falls back to the plain line for input that is not a session, and escapes what the input holds', async () => {
    const plain = (await tally(['statusline'])).stdout;
    expect(plain).toMatch(/^¥[\d,]+\.\d\d · today /);
    for (const input of ['{not json', '[1,2]', '"text"', '', '{}']) expect((await tally(['statusline'], input)).stdout, input).toBe(plain);
    const hostile = await tally(['statusline', '--format', '{model}|{dir}'], JSON.stringify({ model: { display_name: 'Op\u001b]0;owned\u0007us\u202e' }, workspace: { current_dir: '/tmp/\u001b[2Jx' } }));
    expect(hostile.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    expect(hostile.stdout).toContain('Op\\e]0;owned\\u0007us\\u202e|\\e[2Jx');
  });

  it("reads a session that comes through a shell's pipe in two writes, the second a moment after the first (what was there, then the rest)", async () => {
    const whole = sessionJson('7f3e1c2a-0b9d-4e58-a1c6-2d4f6e8a9b01', 'Haiku');
    const result = await runProcess('sh', ['-c', '(printf %s "$FIRST"; sleep 0.06; printf %s "$REST") | "$NODE_BIN" "$@"', 'sh', ...binaryArgs(['statusline', '--format', '{model}'], NOW)], {
      env: { PATH: process.env.PATH, HOME: '/nonexistent-home', ...env, FIRST: whole.slice(0, 20), REST: whole.slice(20), NODE_BIN: NODE },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('Haiku');
  });

  it('takes input past a megabyte for no session (the plain line), from a socket and from a shell\'s pipe alike', async () => {
    const plain = (await tally(['statusline'])).stdout;
    // A session document padded past the limit: what is read is never parsed, whatever it holds.
    const padded = (bytes: number) => JSON.stringify({ ...(JSON.parse(sessionJson('7f3e1c2a-0b9d-4e58-a1c6-2d4f6e8a9b01', 'Haiku')) as object), padding: 'x'.repeat(bytes) });
    const huge = padded(1024 * 1024);
    expect((await tally(['statusline'], huge)).stdout).toBe(plain);
    const file = join(work.path, 'huge-session.json');
    writeFileSync(file, huge);
    const piped = await runProcess('sh', ['-c', 'cat "$DOC" | "$NODE_BIN" "$@"', 'sh', ...binaryArgs(['statusline'], NOW)], {
      env: { PATH: process.env.PATH, HOME: '/nonexistent-home', ...env, DOC: file, NODE_BIN: NODE },
    });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toBe(plain);
    // Under the limit, the same document is the session.
    expect((await tally(['statusline', '--format', '{model}'], padded(1024 * 1024 - 4096))).stdout.trim()).toBe('Haiku');
  });

  it('reads a whole session from a writer that keeps its end open, on a socket and on a shell\'s pipe', async () => {
    const whole = sessionJson('7f3e1c2a-0b9d-4e58-a1c6-2d4f6e8a9b01', 'Haiku');
    const child = spawn(NODE, binaryArgs(['statusline', '--format', '{model}'], NOW), { env: { PATH: process.env.PATH, HOME: '/nonexistent-home', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stdin.on('error', () => undefined);
    child.stdin.write(whole);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.end();
    expect(code).toBe(0);
    expect(out.trim()).toBe('Haiku');
    const piped = await runProcess('sh', ['-c', '(printf %s "$DOC"; sleep 1) | "$NODE_BIN" "$@"', 'sh', ...binaryArgs(['statusline', '--format', '{model}'], NOW)], {
      env: { PATH: process.env.PATH, HOME: '/nonexistent-home', ...env, DOC: whole, NODE_BIN: NODE },
    });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout.trim()).toBe('Haiku');
  });

  it('does not wait on a pipe that never delivers', async () => {
    const child = spawn(NODE, binaryArgs(['statusline'], NOW), { env: { PATH: process.env.PATH, HOME: '/nonexistent-home', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.end();
    expect(code).toBe(0);
    expect(out).toMatch(/^¥[\d,]+\.\d\d · today /);
  });
});

describe("the README's Claude Code settings", () => {
  it('is a statusLine command that, fed a session, prints the line the README shows', async () => {
    const readme = manualText();
    const block = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as { statusLine?: { type: string; command: string } }).find((b) => b.statusLine)!;
    expect(block.statusLine!.type).toBe('command');
    const [bin, ...args] = block.statusLine!.command.split(' ');
    expect(bin).toBe('tally');
    const result = await tally(args, sessionJson('7f3e1c2a-0b9d-4e58-a1c6-2d4f6e8a9b01'));
    const shown = /```console\n(Opus · session .*)\n```/.exec(readme)![1]!;
    // The same parts, in the same order, whatever the amounts.
    const shape = (line: string) => line.replace(/[\d,]+\.\d+/g, 'N').replace(/\d+d$/, 'Nd');
    expect(shape(result.stdout.trim())).toBe(shape(shown));
  });
});
