// tally guard as the built binary, as Claude Code runs a hook: the event's JSON on stdin, exit 2
// with the reason on stderr to block, exit 0 and nothing written to go on. Limits: the key's day
// (an amount, a share of its limit), the session's spend (calls the sandbox's generation stand-in
// bills after the transcript began), a stored budget. What was fetched is kept: a second run
// answers from it with the gateway gone. A gateway that is down or slow never blocks (said on
// stderr) unless --fail-closed; a slow one is asked again in the background and the next hook
// decides from that. The README's settings block runs as Claude Code runs it.
import { manualText } from '../support/manual.js';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { COMMANDS } from '../../src/cli/registry.js';
import { runTally, tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30);
const work = tempDir();
let sandbox: Sandbox;
let runs = 0;

beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000 });
});
afterAll(async () => {
  await sandbox.close();
  work.remove();
});

/** A state folder of its own, against `gateway`. */
function envFor(gateway: { baseUrl: string; demoKey: string }): NodeJS.ProcessEnv {
  return { TALLY_CONFIG_DIR: join(work.path, `state-${++runs}`), TALLY_BASE_URL: gateway.baseUrl, TALLY_API_KEY: gateway.demoKey, TZ: 'UTC' };
}

/** A Claude Code hook event (as its hooks reference documents it), with a transcript that began `minutesAgo` before NOW. */
function event(kind: 'PreToolUse' | 'UserPromptSubmit', session: string, minutesAgo = 10): string {
  const transcript = join(work.path, `${session}.jsonl`);
  writeFileSync(transcript, `${JSON.stringify({ type: 'user', timestamp: new Date(NOW - minutesAgo * 60_000).toISOString(), message: { role: 'user', content: 'hi' } })}\n`);
  const common = { session_id: session, transcript_path: transcript, cwd: work.path, permission_mode: 'default', hook_event_name: kind };
  return JSON.stringify(kind === 'PreToolUse' ? { ...common, tool_name: 'Bash', tool_input: { command: 'npm test' } } : { ...common, prompt: 'run the evals' });
}

/** A call to the sandbox's generation stand-in: claude-opus-4.1 with 20,000 tokens out, about ¥10.50, billed to the key. */
function spend(gateway: Sandbox): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${gateway.baseUrl}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${gateway.demoKey}`, 'content-type': 'application/json' } }, (response) => {
      response.resume();
      response.on('end', resolve);
    });
    request.on('error', reject);
    request.end(JSON.stringify({ model: 'claude-opus-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20000 }));
  });
}

/**
 * The hook's decision: it waits 300 ms (wall time) on the gateway and otherwise goes on, saying
 * so, while a refresh finishes in the background for the next hook. On a busy machine a first
 * run may be that one; the hook is run again (as Claude Code would, at the next tool) until it
 * decides from figures, within a few seconds.
 */
async function decided(args: string[], options: Parameters<typeof runTally>[1]): Promise<Awaited<ReturnType<typeof runTally>>> {
  for (let attempt = 0; ; attempt++) {
    const result = await runTally(args, options);
    if (attempt === 20 || !result.stderr.startsWith('tally guard: not checked (the gateway did not answer within')) return result;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function keyToday(env: NodeJS.ProcessEnv): Promise<{ used: number; limit: number }> {
  const result = await runTally(['balance', '--json'], { env, now: NOW });
  const key = (JSON.parse(result.stdout) as { api_key: { daily_cost_used: string; daily_cost_limit: string } }).api_key;
  return { used: Number(key.daily_cost_used), limit: Number(key.daily_cost_limit) };
}

describe('tally guard: a Claude Code hook that blocks at a limit', () => {
  it("goes on silently under --max-daily-used and blocks past it (an amount, a share of the key's daily limit), saying what was spent and how to go on", async () => {
    const env = envFor(sandbox);
    const { used, limit } = await keyToday(env);
    expect(used).toBeGreaterThan(0);
    const input = event('PreToolUse', 'day-1');
    const under = await decided(['guard', '--max-daily-used', String(Math.ceil(used + 1))], { env, now: NOW, input });
    expect(under).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const past = await decided(['guard', '--max-daily-used', String(Math.floor(used / 2))], { env: envFor(sandbox), now: NOW, input });
    expect(past.code, past.stderr).toBe(2);
    expect(past.stdout).toBe('');
    expect(past.stderr).toMatch(new RegExp(`^tally guard: a spending limit is reached, so this is blocked: this key has spent ¥[\\d.,]+ of its ¥[\\d.,]+ daily limit today \\([\\d.]+%\\), past the hook's --max-daily-used ¥${Math.floor(used / 2)}\\.00\\. The key's day starts again at the gateway's midnight; to go on sooner, raise --max-daily-used in the hook's command\\.\\n$`));
    const share = Math.floor((used / limit) * 100) - 1;
    const pastShare = await decided(['guard', '--max-daily-used', `${share}%`], { env: envFor(sandbox), now: NOW, input });
    expect(pastShare.code, pastShare.stderr).toBe(2);
    expect(pastShare.stderr).toContain(`past the hook's --max-daily-used ${share}%`);
  });

  it("blocks past --max-session-spend: the key's calls since the session's transcript began, in either hook (PreToolUse, UserPromptSubmit)", async () => {
    const gateway = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000 });
    try {
      const env = envFor(gateway);
      const quiet = await runTally(['guard', '--max-session-spend', '5'], { env, now: NOW, input: event('UserPromptSubmit', 'sess-a', 1) });
      expect(quiet).toMatchObject({ code: 0, stdout: '', stderr: '' });
      await spend(gateway);
      // A new session whose transcript began before that call: it counts.
      for (const kind of ['PreToolUse', 'UserPromptSubmit'] as const) {
        const blocked = await runTally(['guard', '--max-session-spend', '5'], { env: envFor(gateway), now: NOW, input: event(kind, `sess-b-${kind}`, 5) });
        expect(blocked.code, blocked.stderr).toBe(2);
        expect(blocked.stderr).toMatch(/^tally guard: a spending limit is reached, so this is blocked: this session has spent ¥10\.50 of this key's money, past the hook's --max-session-spend ¥5\.00\. To go on, raise --max-session-spend in the hook's command, or start a new session\.\n$/);
      }
    } finally {
      await gateway.close();
    }
  });

  it('blocks when a stored budget is spent, naming it, whose spend it counts and how to raise it; a budget with room goes on', async () => {
    const env = envFor(sandbox);
    for (const [name, amount] of [['tight', '1'], ['roomy', '100000000']] as const) {
      const set = await runTally(['budget', 'set', name, '--amount', amount, '--period', 'month', '--scope', 'account'], { env, now: NOW });
      expect(set.code, set.stderr).toBe(0);
    }
    const input = event('PreToolUse', 'budget-1');
    const roomy = await decided(['guard', '--budget', 'roomy'], { env, now: NOW, input });
    expect(roomy).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const tight = await decided(['guard', '--budget', 'roomy', '--budget', 'tight'], { env, now: NOW, input });
    expect(tight.code, tight.stderr).toBe(2);
    expect(tight.stderr).toMatch(/blocked: budget "tight" \(the whole account's spend, this month until 2026-12-01T00:00:00\+00:00\) has spent ¥[\d,.]+ of its ¥1\.00 \([\d,.]+%\)\. To go on, raise it \(tally budget set tight --amount AMOUNT --period month\) or take --budget tight out of the hook's command\.\n$/);
    // A budget that is not stored is the hook's own mistake: exit 1 (Claude Code shows it, and does not block on it).
    const unknown = await runTally(['guard', '--budget', 'tigth'], { env, now: NOW, input });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/there is no budget "tigth"[\s\S]*tight/);
  });

  it('answers from what it fetched while that is younger than --max-age: the same block with the gateway gone', async () => {
    const gateway = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000 });
    const env = envFor(gateway);
    const input = event('PreToolUse', 'cached-1');
    const first = await runTally(['guard', '--max-daily-used', '0.01'], { env, now: NOW, input });
    expect(first.code, first.stderr).toBe(2);
    await gateway.close();
    const second = await runTally(['guard', '--max-daily-used', '0.01'], { env, now: NOW, input });
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr.replace(/ \(figures from [^)]*\)/, '')).toBe(first.stderr);
    // Past --max-age the gateway is asked and does not answer: figures of moments ago (up to 15 minutes) still decide.
    const stale = await runTally(['guard', '--max-daily-used', '0.01', '--max-age', '0'], { env, now: NOW + 2000, input });
    expect(stale.code, stale.stderr).toBe(2);
  });

  it('never blocks on a gateway that cannot be read (one line on stderr, exit 0) unless --fail-closed (exit 2, saying so)', async () => {
    const env = { ...envFor(sandbox), TALLY_BASE_URL: 'http://127.0.0.1:9' };
    const input = event('UserPromptSubmit', 'down-1');
    const open = await runTally(['guard', '--max-daily-used', '90%', '--max-session-spend', '10'], { env, now: NOW, input });
    expect(open.code, open.stderr).toBe(0);
    expect(open.stdout).toBe('');
    expect(open.stderr).toMatch(/^tally guard: not checked \(.*127\.0\.0\.1:9.*\): --max-daily-used: the key's spend today could not be read; --max-session-spend: the session's spend could not be read; the agent goes on\.\n$/);
    const closed = await runTally(['guard', '--max-daily-used', '90%', '--fail-closed'], { env: { ...env, TALLY_CONFIG_DIR: join(work.path, 'closed') }, now: NOW, input });
    expect(closed.code).toBe(2);
    expect(closed.stderr).toMatch(/^tally guard: a limit could not be checked \(.*\), and --fail-closed blocks until it can: --max-daily-used: the key's spend today could not be read\. Remove --fail-closed/);
    // Input that is not an event names no session: that limit is not checked.
    const garbled = await runTally(['guard', '--max-session-spend', '10'], { env: envFor(sandbox), now: NOW, input: 'not json {' });
    expect(garbled.code).toBe(0);
    expect(garbled.stderr).toMatch(/not checked: --max-session-spend: the hook's input names no session; the agent goes on/);
  });

  it('waits at most a moment on a slow gateway: goes on unchecked, asks again in the background, and the next hook decides from that', async () => {
    const gateway = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000 });
    try {
      gateway.faults.push({ kind: 'slow', delayMs: 3000, times: Infinity });
      const env = envFor(gateway);
      const input = event('PreToolUse', 'slow-1');
      const first = await runTally(['guard', '--max-daily-used', '0.01'], { env, now: NOW, input });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toMatch(/^tally guard: not checked \(the gateway did not answer within 300 ms; asked again in the background\): --max-daily-used/);
      const cacheDir = join(env.TALLY_CONFIG_DIR!, 'cache');
      const deadline = Date.now() + 30_000;
      const written = () => existsSync(cacheDir) && readdirSync(cacheDir).some((name) => name.startsWith('guard-') && name.endsWith('.json'));
      while (!written() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      expect(written()).toBe(true);
      const next = await runTally(['guard', '--max-daily-used', '0.01'], { env, now: NOW, input });
      expect(next.code, next.stderr).toBe(2);
    } finally {
      await gateway.close();
    }
  }, 60_000);

  it.each([
    [['--max-daily-used', '90%', '--no-such-flag'], /unknown option/],
    [[], /name a limit/],
    [['--max-session-spend', 'ten'], /not an amount/],
    [['--max-daily-used', '90%', '--json'], /does not apply to guard/],
  ])('its own mistakes exit 1, never the 2 that blocks: %j', async (args, message) => {
    const result = await runTally(['guard', ...args], { env: envFor(sandbox), now: NOW, input: event('PreToolUse', 'mistake') });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
  });

  it("runs the README's settings block as Claude Code does (each hook's command, the documented event on stdin), and the help's examples", async () => {
    const readme = manualText();
    const block = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('tally guard'))!;
    const settings = JSON.parse(block) as { hooks: Record<string, { matcher?: string; hooks: { type: string; command: string }[] }[]> };
    expect(Object.keys(settings.hooks).sort()).toEqual(['PreToolUse', 'UserPromptSubmit']);
    const env = envFor(sandbox);
    const budget = await runTally(['budget', 'set', 'monthly', '--amount', '100000000', '--period', 'month', '--scope', 'account'], { env, now: NOW });
    expect(budget.code, budget.stderr).toBe(0);
    for (const [kind, entries] of Object.entries(settings.hooks)) {
      for (const hook of entries.flatMap((e) => e.hooks)) {
        expect(hook.type).toBe('command');
        const words = hook.command.split(' ');
        expect(words[0]).toBe('tally');
        const result = await runTally(words.slice(1), { env, now: NOW, input: event(kind as 'PreToolUse', `readme-${kind}`) });
        // The sandbox key is past 90% of its day or not: either way the hook answered as a hook does.
        expect([0, 2], result.stderr).toContain(result.code);
        expect(result.stdout).toBe('');
        if (result.code === 0) expect(result.stderr).toBe('');
        else expect(result.stderr).toMatch(/^tally guard: a spending limit is reached/);
      }
    }
    const entry = COMMANDS.find((c) => c.name === 'guard')!;
    for (const example of [entry.example, ...(entry.more ?? [])]) {
      const result = await runTally(example.split(' ').slice(1), { env, now: NOW, input: event('PreToolUse', 'help') });
      expect([0, 2], `${example}\n${result.stderr}`).toContain(result.code);
    }
  });
});

