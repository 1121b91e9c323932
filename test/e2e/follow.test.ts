// tally logs --follow as the built binary against the sandbox: NDJSON on a pipe equal to what
// `logs --all` holds for the same window, and in a pseudo-terminal (util-linux `script`) a live
// table whose lines fit and a status line with the running total; Ctrl-C (SIGINT) ends both with
// exit 130 and a one-line summary.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { binaryArgs, hasCommand, NODE, runTally, tempDir, skipWithout } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30);
const hasScript = hasCommand('script');

let sandbox: Sandbox;
const state = tempDir();
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000 });
  env = { PATH: process.env.PATH, HOME: '/nonexistent-home', TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: 'UTC', TALLY_TEST_NOW: String(NOW) };
});
afterAll(async () => {
  await sandbox.close();
  state.remove();
});

/** Starts a child, waits until its output matches `ready`, then sends SIGINT; its exit code and output. */
function interruptWhen(child: ChildProcess, ready: RegExp): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    let sent = false;
    const check = () => {
      if (!sent && ready.test(stdout)) {
        sent = true;
        // A moment for a second poll, so the test sees calls are not printed twice.
        setTimeout(() => child.kill('SIGINT'), 1500);
      }
    };
    child.stdout!.on('data', (d) => ((stdout += d), check()));
    child.stderr?.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('tally logs --follow (built binary)', () => {
  it('streams NDJSON on a pipe, each call once, the same calls logs --all holds; Ctrl-C exits 130 with a summary', async () => {
    const all = await runTally(['logs', '--since', '30h', '--all', '--ndjson'], { env, now: NOW });
    const expected = all.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id);
    expect(expected.length).toBeGreaterThan(5);
    const child = spawn(NODE, binaryArgs(['logs', '--follow', '--since', '30h', '--interval', '1'], NOW), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const result = await interruptWhen(child, /\n/);
    expect(result.code).toBe(130);
    const followed = result.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id);
    // Oldest first (the log itself is newest first).
    expect(followed).toEqual([...expected].reverse());
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^tally: stopped following the log: ${followed.length} calls · ¥[\\d,]+\\.\\d\\d · ¥\\d+\\.\\d{4} a minute over 30\\.0 hours since .*\\(this key's calls, as the gateway states\\)$`))]);
  });

  it.skipIf(skipWithout(hasScript))('shows a live table in a terminal, every line within its width', async () => {
    const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;
    const command = `stty cols 72 rows 40; exec ${[NODE, ...binaryArgs(['logs', '--follow', '--since', '30h', '--interval', '1'], NOW)].map(quote).join(' ')}`;
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...env, TERM: 'xterm-256color' }, stdio: ['pipe', 'pipe', 'pipe'] });
    // Ctrl-C typed at the terminal: the line discipline sends SIGINT to tally.
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      let stdout = '';
      let sent = false;
      child.stdout.on('data', (d) => {
        stdout += d;
        if (!sent && / a minute /.test(stdout)) {
          sent = true;
          setTimeout(() => child.stdin.write('\u0003'), 500);
        }
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('close', (code) => (clearTimeout(timer), resolve({ code, stdout })));
    });
    expect(result.code).toBe(130);
    // What the terminal shows: each status line overwrites the last (\r, erase line).
    const screen = result.stdout.replace(/\r\n/g, '\n').split('\n').map((line) => line.split(/\r\u001b\[2K/).pop()!.replace(/\u001b\[[0-9;]*m/g, ''));
    // At 72 columns the status that says success on every row gives way first.
    expect(screen.find((l) => /^created_at\s+model\s+prompt_tokens\s+.*cost \(¥\)$/.test(l))).toBeDefined();
    expect(screen.filter((l) => /^\d\d-\d\d \d\d:\d\d:\d\d /.test(l)).length).toBeGreaterThan(5);
    for (const line of screen) expect([...line].length, line).toBeLessThanOrEqual(72);
    expect(result.stdout).toMatch(/\d+ calls · ¥[\d,]+\.\d\d · ¥\d+\.\d{4} a minute · since/);
    expect(result.stdout).toMatch(/stopped following the log: \d+ calls/);
  });
});

describe('tally logs --follow against `tally sandbox --live`', () => {
  it('prints the calls as the gateway makes them, each once, in order', async () => {
    const own = tempDir();
    const gateway = spawn(NODE, binaryArgs(['sandbox', '--live', '1', '--json', '--port', '0']), { env: { PATH: process.env.PATH, TALLY_CONFIG_DIR: own.path }, stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const started = await new Promise<{ base_url: string; api_key: string }>((resolve, reject) => {
        let text = '';
        gateway.stdout!.on('data', (d) => {
          text += d;
          if (text.includes('}')) resolve(JSON.parse(text.slice(0, text.lastIndexOf('}') + 1)));
        });
        gateway.on('close', () => reject(new Error(text)));
      });
      // Live calls are billed to the main account's keys by their shares: the demo key sees most of them.
      const follower = spawn(NODE, binaryArgs(['logs', '--follow', '--interval', '1']), { env: { PATH: process.env.PATH, TALLY_CONFIG_DIR: own.path, TALLY_BASE_URL: started.base_url, TALLY_API_KEY: started.api_key, TZ: 'UTC' }, stdio: ['ignore', 'pipe', 'pipe'] });
      const result = await interruptWhen(follower, /(live_\w+[\s\S]*){3}/);
      expect(result.code).toBe(130);
      const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; created_at: number });
      expect(lines.every((l) => l.id.startsWith('live_'))).toBe(true);
      expect(new Set(lines.map((l) => l.id)).size).toBe(lines.length);
      expect(lines.map((l) => l.created_at)).toEqual([...lines.map((l) => l.created_at)].sort((a, b) => a - b));
    } finally {
      gateway.kill('SIGINT');
      own.remove();
    }
  }, 60_000);
});
