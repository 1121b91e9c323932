// A run that has nothing to say on stderr never builds Node's process.stderr (for a pipe, what CI
// and scripts give, that costs 1-2 ms of a start): not for its terminal check, not at the exit,
// not when its connections close. One that has something to say says it, as ever. A hook reads
// its event without building process.stdin (for a Node spawner's socket that loads node:net,
// 5-6 ms of a start), whole, however the writer splits it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, FIXED_CLOCK, NODE, runProcess } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const watch = fileURLToPath(new URL('../support/stdio-watch.cjs', import.meta.url));
const NOW = Date.UTC(2026, 10, 25, 9, 30);
const world = sandboxForFile(NOW, { accountLimit: 100_000 });
/** The run's environment: the sandbox's, on its clock, with the stream watch's log. */
const envOf = (log: string) => ({ PATH: process.env.PATH, HOME: world.state.path, NO_COLOR: '1', ...world.env, TALLY_TEST_NOW: String(NOW), TALLY_TEST_STDERR_LOG: log });

/** A hook's event, as an agent sends it (a PreToolUse, naming the session's model). */
const event = JSON.stringify({ session_id: 'quiet', transcript_path: '/nonexistent.jsonl', cwd: '/tmp', model: { display_name: 'Sonnet' }, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } });

/** A run on a Node spawner's pipes (sockets), fed `input` and closed. */
async function run(args: string[], env: Record<string, string> = {}, input?: string) {
  const log = join(world.state.path, `stderr-${args.join('-').replace(/[^\w-]/g, '_')}.log`);
  const result = await runProcess(NODE, ['--require', FIXED_CLOCK, '--require', watch, BIN, ...args], { env: { ...envOf(log), ...env }, input });
  return { ...result, built: readFileSync(log, 'utf8') };
}

describe('stderr, built only to be written', () => {
  it('is never built by a run that writes nothing there (the everyday commands, their second run too)', async () => {
    for (const args of [['balance', '--json'], ['balance', '--json'], ['status'], ['usage', '--json'], ['forecast', '--json'], ['--version']]) {
      const result = await run(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.built, args.join(' ')).toBe('');
      expect(result.stdout.length).toBeGreaterThan(4);
    }
  });

  it("is never built by a hook reading its event from a shell's pipe (guard, the status line)", async () => {
    await run(['statusline']);
    for (const args of [['guard', '--max-daily-used', '100%', '--max-age', '100000000'], ['statusline', '--max-age', '100000000']]) {
      const log = join(world.state.path, `stderr-pipe-${args[0]}.log`);
      // A shell's pipe (a FIFO), as `echo ... | tally guard` has it.
      const result = await runProcess('sh', ['-c', 'printf %s "$EVENT" | "$NODE_BIN" --require "$CLOCK" --require "$WATCH" "$TALLY_BIN" "$@"', 'sh', ...args], {
        env: { ...envOf(log), EVENT: event, NODE_BIN: NODE, CLOCK: FIXED_CLOCK, WATCH: watch, TALLY_BIN: BIN },
      });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(readFileSync(log, 'utf8'), args.join(' ')).toBe('');
    }
  });

  it("is never built, nor stdin's stream, by a hook reading its event from a Node spawner's socket (Claude Code's hooks, spawnSync's input)", async () => {
    for (const args of [['guard', '--max-daily-used', '100%', '--max-age', '100000000'], ['statusline', '--max-age', '100000000', '--format', '{model}']]) {
      const stdinLog = join(world.state.path, `stdin-socket-${args[0]}.log`);
      const result = await run(args, { TALLY_TEST_STDIN_LOG: stdinLog }, event);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.built, args.join(' ')).toBe('');
      expect(readFileSync(stdinLog, 'utf8'), args.join(' ')).toBe('');
    }
    // The event was read, not skipped: the status line shows the model it names.
    const line = await run(['statusline', '--max-age', '100000000', '--format', '{model}'], {}, event);
    expect(line.stdout.trim()).toBe('Sonnet');
  });

  it('reads a socket the writer fills in parts a moment apart, and warns of nothing under --pending-deprecation', async () => {
    const log = join(world.state.path, 'stderr-parts.log');
    const stdinLog = join(world.state.path, 'stdin-parts.log');
    const child = spawn(NODE, ['--require', FIXED_CLOCK, '--require', watch, BIN, 'statusline', '--max-age', '100000000', '--format', '{model}'], {
      env: { ...envOf(log), TALLY_TEST_STDIN_LOG: stdinLog, NODE_OPTIONS: '--pending-deprecation --throw-deprecation' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.write(event.slice(0, 25));
    await new Promise((resolve) => setTimeout(resolve, 60));
    child.stdin.write(event.slice(25, 60));
    await new Promise((resolve) => setTimeout(resolve, 30));
    child.stdin.end(event.slice(60));
    expect(await closed, stderr).toBe(0);
    expect(stderr).toBe('');
    expect(stdout.trim()).toBe('Sonnet');
    expect(readFileSync(stdinLog, 'utf8')).toBe('');
  });

  it('leaves the socket it shares with the next reader blocking, as it found it', async () => {
    // A shell runs tally, then head, on one stdin (one open file description): had tally left it
    // non-blocking, head's read of a socket with nothing yet would fail at once (EAGAIN).
    const log = join(world.state.path, 'stderr-shared.log');
    const child = spawn('sh', ['-c', '"$NODE_BIN" --require "$CLOCK" "$TALLY_BIN" statusline --max-age 100000000 --format "{model}"; head -c 1; echo " head $?"'], {
      env: { ...envOf(log), NODE_BIN: NODE, CLOCK: FIXED_CLOCK, TALLY_BIN: BIN },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const answered = new Promise<void>((resolve) => child.stdout.on('data', (d) => ((stdout += d), stdout.includes('Sonnet') && resolve())));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    // The event, its end left open: tally answers from the whole object; head then waits for more.
    child.stdin.write(event);
    await answered;
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.stdin.end('Z');
    expect(await closed, stderr).toBe(0);
    expect(stdout).toBe('Sonnet\nZ head 0\n');
  });

  it("builds stdout's stream once the first request is on its way, and writes the answer through it", async () => {
    for (const args of [['balance', '--json'], ['balance', '--json'], ['status'], ['usage', '--json']]) {
      const orderLog = join(world.state.path, `order-${args.join('-')}.log`);
      const result = await run(args, { TALLY_TEST_ORDER_LOG: orderLog });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout.length).toBeGreaterThan(4);
      const order = readFileSync(orderLog, 'utf8').trim().split('\n');
      expect(order[0], args.join(' ')).toBe('request');
      expect(order.filter((line) => line === 'stdout'), args.join(' ')).toEqual(['stdout']);
    }
  });

  it('is built and written where there is something to say: an error, a usage mistake', async () => {
    const refused = await run(['balance', '--json'], { TALLY_BASE_URL: 'http://127.0.0.1:1' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('connection refused');
    expect(refused.built).toContain('built at:');
    const mistake = await run(['balance', '--nonsense']);
    expect(mistake.code).toBe(2);
    expect(mistake.stderr).toContain("unknown option '--nonsense'");
  });
});
