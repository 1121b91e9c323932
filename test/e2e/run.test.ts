// tally run as the built binary, with real child processes against the sandbox: a command that
// spends through the generation stand-in is stopped past --max-spend (SIGTERM to its process
// group, SIGKILL after the grace to what ignores it, a grandchild included), exit 5, with the calls
// that crossed the limit named; one that ends first keeps its exit code; --warn-spend is said and
// alerted once; signals sent to tally reach the command; a gateway that goes away leaves the
// command running (or, --fail-closed, stops it: exit 4); a gateway without a per-call log is
// followed through the key's counter, --scope account through the account's; the sandbox's --live
// calls stop a command that makes none itself; the summary file matches `tally schema run`.
import { manualText } from '../support/manual.js';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { Decimal } from '../../src/domain/money.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { COMMANDS } from '../../src/cli/registry.js';
import { startReceiver } from '../support/receiver.js';
import { binaryArgs, hasCommand, NODE, runTally, tempDir, skipWithout } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30);
const work = tempDir();
let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
let runs = 0;


const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ allErrors: true, strict: false });
const validate = ajv.compile(JSON.parse(readFileSync('schemas/run.schema.json', 'utf8')) as object);

/** A command that spends: a call to the stand-in every `every` ms (claude-opus-4.1 with 20,000 tokens out: about ¥10.50 a call). */
const SPENDER = `
import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
const [url, key, every, mode, out, count, exitCode] = process.argv.slice(2);
writeFileSync(out + (mode === 'escaped' ? '/escaped' : '/pid'), String(process.pid));
if (mode === 'setsid') {
  // A child that leaves the command's group and session (as language servers and worker pools do), and goes on spending.
  spawn(process.execPath, [process.argv[1], url, key, every, 'escaped', out, count, exitCode], { stdio: 'ignore', detached: true }).unref();
}
if (mode === 'fork') {
  const grandchild = spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  writeFileSync(out + '/grandchild', String(grandchild.pid));
}
if (mode === 'ignore-term' || mode === 'fork' || mode === 'escaped') process.on('SIGTERM', () => appendFileSync(out + '/signals', 'SIGTERM ignored\\n'));
else process.on('SIGTERM', () => { appendFileSync(out + '/signals', 'SIGTERM\\n'); process.exit(143); });
process.on('SIGINT', () => { appendFileSync(out + '/signals', 'SIGINT\\n'); process.exit(130); });
if (mode === 'sdk') appendFileSync(out + '/env', 'TALLY_API_KEY=' + (process.env.TALLY_API_KEY ? 'present' : 'absent') + ' OPENAI_API_KEY=' + (process.env.OPENAI_API_KEY && process.env.OPENAI_API_KEY !== key ? 'local' : 'the key'));
const base = mode === 'sdk' ? process.env.OPENAI_BASE_URL : url + '/v1';
const bearer = mode === 'sdk' ? process.env.OPENAI_API_KEY : key;
const call = () => new Promise((resolve) => {
  const request = http.request(base + '/chat/completions', { method: 'POST', headers: { authorization: 'Bearer ' + bearer, 'content-type': 'application/json' } }, (response) => { response.resume(); response.on('end', resolve); });
  request.on('error', resolve);
  request.end(JSON.stringify({ model: 'claude-opus-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20000 }));
});
for (let n = 0; ; n++) {
  if (n >= Number(count)) process.exit(Number(exitCode));
  if (mode !== 'idle') await call();
  // burst: the calls one after another, then \`every\` ms before it ends.
  await new Promise((resolve) => setTimeout(resolve, mode === 'burst' && n + 1 < Number(count) ? 0 : Number(every)));
}
`;
const spender = join(work.path, 'spender.mjs');

beforeAll(async () => {
  writeFileSync(spender, SPENDER);
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000 });
  env = { PATH: process.env.PATH, HOME: '/nonexistent-home', TALLY_CONFIG_DIR: join(work.path, 'state'), TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: 'UTC', TALLY_TEST_NOW: String(NOW) };
});
afterAll(async () => {
  await sandbox.close();
  work.remove();
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  out: string;
  summary: Record<string, unknown>;
}

/** `tally run FLAGS -- node spender.mjs …` as a child process; `during` acts on it while it runs. */
async function runSpender(flags: string[], spend: { every?: number; mode?: string; count?: number; exitCode?: number; gateway?: Sandbox; env?: NodeJS.ProcessEnv; logLag?: number } = {}, during?: (child: ChildProcess, out: string) => void): Promise<Ran> {
  const out = join(work.path, `run-${++runs}`);
  mkdirSync(out);
  // A gateway of its own unless one is given: the calls of another test's command never count here.
  const own = spend.gateway ? undefined : await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000, logLagSeconds: spend.logLag ?? 0 });
  const gateway = spend.gateway ?? own!;
  const args = ['run', ...flags, '--json-summary', join(out, 'summary.json'), '--', NODE, spender, gateway.baseUrl, gateway.demoKey, String(spend.every ?? 200), spend.mode ?? 'plain', out, String(spend.count ?? 1000), String(spend.exitCode ?? 0)];
  const child = spawn(NODE, binaryArgs(args, NOW), { env: { ...env, ...spend.env, TALLY_BASE_URL: gateway.baseUrl }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  during?.(child, out);
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.on('close', (c) => (clearTimeout(timer), resolve(c)));
  });
  await own?.close();
  const summaryFile = join(out, 'summary.json');
  return { code, stdout, stderr, out, summary: existsSync(summaryFile) ? (JSON.parse(readFileSync(summaryFile, 'utf8')) as Record<string, unknown>) : {} };
}

/** Whether the process whose pid the file holds still runs (a zombie, ended and not yet reaped by its new parent, does not). */
const alive = (pidFile: string) => {
  try {
    const stat = readFileSync(`/proc/${readFileSync(pidFile, 'utf8').trim()}/stat`, 'utf8');
    return !/^\S+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
};

describe('tally run: a command under a spending limit', () => {
  it('stops a command that spends past --max-spend: names the calls, SIGTERM to its group, SIGKILL after the grace to what ignores it (a grandchild too), exit 5', async () => {
    const ran = await runSpender(['--max-spend', '25', '--poll', '1', '--grace', '1'], { mode: 'fork' });
    expect(ran.code, ran.stderr).toBe(5);
    expect(ran.stdout).toBe('');
    const lines = ran.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^tally run: node runs with --max-spend ¥25\.00 on this key's spend, read every 1s; a stop comes within one reading plus the gateway's own lag/);
    expect(lines).toContainEqual(expect.stringMatching(/^tally run: this key's spend since the start is ¥(2[5-9]|[3-9]\d)\.\d\d, past --max-spend ¥25\.00(?: \(the key's daily counter; its per-call log has booked ¥[\d,.]+ of it so far\))?; the calls that crossed it: \d\d:\d\d claude-opus-4\.1 ¥10\.5\d{3}.*\. Stopping node: SIGTERM to its process group, SIGKILL after 1s$/));
    expect(lines.at(-1)).toMatch(/^tally run: node was stopped past --max-spend \(killed after the grace\) after \d+ seconds?; this key's spend since the start: ¥\d+\.\d\d \(\d+ calls\) against --max-spend ¥25\.00, read from its per-call log$/);
    expect(readFileSync(join(ran.out, 'signals'), 'utf8')).toBe('SIGTERM ignored\n');
    // Nothing of the command runs on: not the command, not what it started.
    expect(alive(join(ran.out, 'pid'))).toBe(false);
    expect(alive(join(ran.out, 'grandchild'))).toBe(false);
    expect(validate(ran.summary), JSON.stringify(validate.errors)).toBe(true);
    expect(ran.summary).toMatchObject({ command: 'node', outcome: 'stopped', signal: 'SIGKILL', exit_code: null, tally_exit_code: 5, currency: 'CNY', max_spend: '25', scope: 'key', source: 'log', stopped_by: 'SIGKILL', failed_readings: 0 });
    expect(Number(ran.summary.spent)).toBeGreaterThan(25);
    expect((ran.summary.crossing_calls as { model: string }[])[0]).toMatchObject({ model: 'claude-opus-4.1', cost: expect.stringMatching(/^10\.5/) });
  });

  it("stops a child that left the command's session (setsid) and spends on through the grace, and counts every call of the grace although the log books them 2 s late", async () => {
    const gateway = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000, logLagSeconds: 2 });
    const used = async () => {
      const response = await fetch(`${gateway.baseUrl}/v1/open/balance`, { headers: { authorization: `Bearer ${gateway.demoKey}` } });
      return ((await response.json()) as { api_key: { daily_cost_used: string } }).api_key.daily_cost_used;
    };
    const before = await used();
    try {
      const ran = await runSpender(['--max-spend', '25', '--poll', '1', '--grace', '2', '--settle', '20'], { mode: 'setsid', gateway });
      expect(ran.code, ran.stderr).toBe(5);
      // Nothing the run started runs on: not the command, not the child in a session of its own.
      expect(alive(join(ran.out, 'pid'))).toBe(false);
      expect(alive(join(ran.out, 'escaped'))).toBe(false);
      expect(ran.stderr).toContain("tally run: waiting for the gateway to book the run's last calls");
      // Every call of the run is in the figure, the grace's and the escaped child's included: what the key's counter says it spent.
      const spentByKey = new Decimal(await used()).minus(before);
      expect(new Decimal(String(ran.summary.spent)).toFixed(8)).toBe(spentByKey.toFixed(8));
      expect(ran.summary).toMatchObject({ outcome: 'stopped', settled: true, floor: false, exit_code_of: 'tally', left_running: [] });
      expect(validate(ran.summary), JSON.stringify(validate.errors)).toBe(true);
      // Calls were made after the stop was decided (the grace), and they are counted.
      expect(spentByKey.gt(new Decimal(25).plus('21'))).toBe(true);
    } finally {
      await gateway.close();
    }
  });

  it("stops by the key's counter when the per-call log books calls late: the overshoot is the poll's, not the log's lag", async () => {
    // The log books each call 10 s late; a call costs about ¥10.50 and one goes out every 100 ms, so
    // a stop that waited for the log would come some ¥1,000 past the limit.
    const gateway = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000, logLagSeconds: 10 });
    try {
      const ran = await runSpender(['--max-spend', '25', '--poll', '1', '--grace', '1', '--settle', '30'], { every: 100, gateway });
      expect(ran.code, ran.stderr).toBe(5);
      expect(ran.stderr).toMatch(/past --max-spend ¥25\.00 \(the key's daily counter; its per-call log has booked ¥[\d,.]+ of it so far\)/);
      expect(ran.summary).toMatchObject({ outcome: 'stopped', settled: true });
      expect(Number(ran.summary.spent) - 25).toBeLessThan(400);
    } finally {
      await gateway.close();
    }
  });

  it('--proxy: the command\'s SDK goes through a firewall started for the run; the call past --max-spend is refused before it is made, then the command is stopped (exit 5)', async () => {
    const gateway = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000 });
    const used = async () => {
      const response = await fetch(`${gateway.baseUrl}/v1/open/balance`, { headers: { authorization: `Bearer ${gateway.demoKey}` } });
      return ((await response.json()) as { api_key: { daily_cost_used: string } }).api_key.daily_cost_used;
    };
    const before = await used();
    try {
      // The command calls as an OpenAI SDK does: its base URL and key from the environment.
      const ran = await runSpender(['--max-spend', '25', '--poll', '5', '--grace', '1', '--proxy', '--settle', '10'], { mode: 'sdk', every: 50, gateway });
      expect(ran.code, ran.stderr).toBe(5);
      expect(ran.stderr).toMatch(/tally run: the firewall refused a call of node that could have taken the run's spend past --max-spend ¥25\.00/);
      // The gateway's own counter never passed the limit: the refused call was never made.
      expect(new Decimal(await used()).minus(before).lte(25)).toBe(true);
      // Stopped by the firewall before the spend passed the limit: no spend past it, and no warning it was not past.
      expect(ran.summary).toMatchObject({ outcome: 'stopped', refused_calls: expect.any(Number), past_max_spend: false, warned: false });
      expect(validate(ran.summary), JSON.stringify(validate.errors)).toBe(true);
      // No gateway credential in the command's environment: the key stays with tally.
      expect(readFileSync(join(ran.out, 'env'), 'utf8')).toBe('TALLY_API_KEY=absent OPENAI_API_KEY=local');
    } finally {
      await gateway.close();
    }
  });

  it.each([
    ['ahead of', 120_000],
    ['behind', -120_000],
  ])("reads the log on the gateway's clock when it runs two minutes %s this machine's (its Date header says so): the stop does not wait for the clocks to agree", async (_, skewMs) => {
    // Three calls and then none: the spend crosses the limit at once, and tally has to see it in the
    // log whose times are the gateway's (ahead: they lay past each reading's end for two minutes;
    // behind: before the start, never counted).
    const gateway = await startSandbox({ now: clockStartingAt(NOW + skewMs), dayOffsetMinutes: 480, accountLimit: 100_000 });
    try {
      const ran = await runSpender(['--max-spend', '25', '--poll', '1', '--grace', '1'], { gateway, count: 3, exitCode: 0, every: 30_000, mode: 'burst' });
      // The command idles for 30 s after its calls and ends with 0: only a stop ends it sooner.
      expect(ran.code, ran.stderr).toBe(5);
      expect(ran.summary).toMatchObject({ outcome: 'stopped', source: 'log', calls: 3 });
    } finally {
      await gateway.close();
    }
  });

  it('says when the calls of a command that ended on its own took the spend past the limit (found in the reading after it): the exit code stays the command\'s', async () => {
    const ran = await runSpender(['--max-spend', '25', '--warn-spend', '5', '--poll', '30'], { count: 3, every: 0, exitCode: 0, mode: 'burst' });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr.trim().split('\n').at(-1)).toMatch(/^tally run: node exited 0 after \d+ seconds?; this key's spend since the start: ¥31\.50 \(3 calls\) against --max-spend ¥25\.00, read from its per-call log — past the limit, found in the reading after it ended/);
    expect(validate(ran.summary), JSON.stringify(validate.errors)).toBe(true);
    expect(ran.summary).toMatchObject({ outcome: 'finished', exit_code: 0, tally_exit_code: 0, past_max_spend: true, warned: true, crossed_at: null });
  });

  it('gives the command SIGTERM and the grace: one that ends on it is "terminated", exit 5; the step summary gets a table', async () => {
    const stepSummary = join(work.path, 'step-summary.md');
    const ran = await runSpender(['--max-spend', '15', '--poll', '1', '--grace', '5'], { env: { GITHUB_STEP_SUMMARY: stepSummary } });
    expect(ran.code, ran.stderr).toBe(5);
    expect(readFileSync(join(ran.out, 'signals'), 'utf8')).toBe('SIGTERM\n');
    expect(ran.summary).toMatchObject({ outcome: 'stopped', exit_code: 143, signal: null, stopped_by: 'SIGTERM' });
    expect(readFileSync(stepSummary, 'utf8')).toMatch(/^### tally run\n\n\| \| \|\n\|---\|---\|\n\| command \| node \|\n\| ended \| \*\*stopped\*\*: past the limit \|\n\| spent \| ¥\d+\.\d\d \(\d+ calls\) \|\n\| limit \| ¥15\.00 \|\n/);
  });

  it('keeps the exit code of a command that ends first, says what it spent, and warns (and alerts) once at --warn-spend', async () => {
    const receiver = await startReceiver();
    try {
      const own = { ...env, TALLY_CONFIG_DIR: join(work.path, 'state-alerts') };
      const added = await runTally(['notify', 'add', 'team', '--kind', 'webhook'], { env: own, now: NOW, input: `${receiver.url}/hook\n` });
      expect(added.code, added.stderr).toBe(0);
      const ran = await runSpender(['--max-spend', '1000', '--warn-spend', '15', '--poll', '1', '--notify', 'team'], { count: 4, every: 400, exitCode: 3, env: own });
      expect(ran.code, ran.stderr).toBe(3);
      const warnings = ran.stderr.split("\n").filter((l) => l.includes("past --warn-spend"));
      expect(warnings).toEqual([expect.stringMatching(/^tally run: this key's spend since the start is ¥\d+\.\d\d, past --warn-spend ¥15\.00 \(the limit is ¥1,000\.00\)$/)]);
      expect(ran.stderr.trim().split('\n').at(-1)).toMatch(/^tally run: node exited 3 after \d+ seconds?; this key's spend since the start: ¥42\.\d\d \(4 calls\) against --max-spend ¥1,000\.00, read from its per-call log$/);
      expect(ran.summary).toMatchObject({ outcome: 'finished', exit_code: 3, tally_exit_code: 3, warned: true, calls: 4, crossed_at: null, stopped_by: null });
      expect(receiver.received.map((r) => JSON.parse(r.body) as Record<string, unknown>)).toEqual([expect.objectContaining({ check: 'run:warn-spend', level: 'warn', limit: '15', unit: 'CNY', scope: 'key' })]);
    } finally {
      await receiver.close();
    }
  });

  it('passes a signal sent to tally on to the command, and ends with the command (its exit code)', async () => {
    const ran = await runSpender(['--max-spend', '1000', '--poll', '1'], { mode: 'idle', every: 100 }, (child, out) => {
      const wait = setInterval(() => {
        if (existsSync(join(out, 'pid'))) {
          clearInterval(wait);
          setTimeout(() => child.kill('SIGTERM'), 300);
        }
      }, 50);
    });
    expect(ran.code, ran.stderr).toBe(143);
    expect(readFileSync(join(ran.out, 'signals'), 'utf8')).toBe('SIGTERM\n');
    expect(ran.summary).toMatchObject({ outcome: 'finished', exit_code: 143, spent: '0', calls: 0 });
  });

  it('lets the command run on when the gateway goes away (said), and stops it under --fail-closed (exit 4)', async () => {
    for (const failClosed of [false, true]) {
      const gateway = await startSandbox({ now: clockStartingAt(NOW), accountLimit: 100_000 });
      const ran = await runSpender(['--max-spend', '1000', '--poll', '1', '--grace', '1', '--timeout', '2', ...(failClosed ? ['--fail-closed'] : [])], { gateway, count: 12, every: 300, exitCode: 0 }, () => {
        setTimeout(() => void gateway.close(), 1500);
      });
      await gateway.close().catch(() => undefined);
      if (failClosed) {
        expect(ran.code, ran.stderr).toBe(4);
        expect(ran.stderr).toMatch(/tally run: the spend cannot be read \(.+\); --fail-closed: stopping the command/);
        expect(ran.summary).toMatchObject({ outcome: 'stopped_unwatched', tally_exit_code: 4 });
        expect(ran.stderr.trim().split('\n').at(-1)).toBe('tally: node was stopped: the spend could not be read (--fail-closed)');
      } else {
        expect(ran.code, ran.stderr).toBe(0);
        expect(ran.stderr).toMatch(/tally run: the spend cannot be read \(.+\); the limit is not watched until it can be; reading again in \d+s/);
        expect(ran.summary).toMatchObject({ outcome: 'finished', exit_code: 0, floor: true });
        expect(Number(ran.summary.failed_readings)).toBeGreaterThan(0);
      }
    }
  });

  it('follows the key\'s daily counter where the gateway has no per-call log, and the account\'s lifetime spend for --scope account', async () => {
    const gateway = await startSandbox({ now: clockStartingAt(NOW), accountLimit: 100_000, noCallLog: true });
    try {
      const key = await runSpender(['--max-spend', '25', '--poll', '1', '--grace', '1', '--debug'], { gateway });
      expect(key.code, key.stderr).toBe(5);
      expect(key.stderr).toContain("tally run: the gateway has no per-call log (");
      expect(key.stderr).toMatch(/past --max-spend ¥25\.00 \(from the key's daily counter: no per-call detail\)\. Stopping node/);
      expect(key.summary).toMatchObject({ source: 'key counter', scope: 'key', calls: null, crossing_calls: [] });
      const account = await runSpender(['--max-spend', '25', '--poll', '1', '--grace', '1', '--scope', 'account'], { gateway });
      expect(account.code, account.stderr).toBe(5);
      expect(account.summary).toMatchObject({ source: 'account counter', scope: 'account' });
      expect(account.stderr).toMatch(/the whole account's spend \(every key\) since the start is ¥\d+\.\d\d, past --max-spend ¥25\.00/);
    } finally {
      await gateway.close();
    }
  });

  it('stops a command that makes no call itself when the sandbox\'s --live calls spend the key', async () => {
    const gateway = await startSandbox({ now: clockStartingAt(NOW), accountLimit: 100_000, liveEveryMs: 100 });
    try {
      const ran = await runSpender(['--max-spend', '0.01', '--poll', '1', '--grace', '1'], { gateway, mode: 'idle', every: 100 });
      expect(ran.code, ran.stderr).toBe(5);
      expect(ran.summary).toMatchObject({ outcome: 'stopped', source: 'log' });
      expect(Number(ran.summary.calls)).toBeGreaterThan(0);
    } finally {
      await gateway.close();
    }
  });

  it.each([
    [['--max-spend', '5', '--json', '--', 'true'], 2, /stdout is the command's own under tally run: --json-summary FILE/],
    [['--max-spend', '5', '--warn-spend', '5', '--', 'true'], 2, /--warn-spend 5 is not below --max-spend 5/],
    [['--max-spend', '5', '--scope', 'acount', '--', 'true'], 2, /--scope "acount" is not key .* or account[\s\S]*account/],
    [['--max-spend', 'five', '--', 'true'], 2, /--max-spend "five" is not an amount in yuan/],
    [['--', 'true'], 2, /required option '--max-spend <amount>' not specified/],
    [['--max-spend', '5', '--', 'no-such-command-here'], 127, /^tally run: no-such-command-here: command not found$/m],
  ])('refuses %j (exit %d) before anything runs', async (args, code, message) => {
    const result = await runTally(['run', ...args], { env, now: NOW });
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it("runs the examples of its help and the README as printed, in a folder whose npm scripts exist", async () => {
    const folder = join(work.path, 'project');
    mkdirSync(folder);
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'p', private: true, scripts: { test: 'node -e "console.log(1)"', eval: 'node -e "console.log(2)"' } }));
    const entry = COMMANDS.find((c) => c.name === 'run')!;
    const readme = manualText();
    // (A reference page's synopsis, `tally run [options] <command...>`, is no example.)
    const fromReadme = [...readme.matchAll(/^(tally run [^\n#]*?)\s*(?:#.*)?$/gm)].map((m) => m[1]!).filter((line) => !line.includes('[options]'));
    expect(fromReadme.length).toBeGreaterThan(1);
    for (const example of [entry.example, ...(entry.more ?? []), ...fromReadme]) {
      const words = example.split(' ').slice(1);
      const result = await runTally(words, { env, now: NOW, cwd: folder, timeoutMs: 60_000 });
      expect(result.code, `${example}\n${result.stderr}`).toBe(0);
    }
  }, 120_000);
});


describe.skipIf(skipWithout(hasCommand('script')))('tally run in a terminal', () => {
  it('keeps the command in the terminal\'s foreground, and stops it with the processes it started', async () => {
    const out = join(work.path, 'tty');
    mkdirSync(out);
    const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;
    const line = [NODE, ...binaryArgs(['run', '--max-spend', '25', '--poll', '1', '--grace', '1', '--json-summary', join(out, 'summary.json'), '--', NODE, spender, sandbox.baseUrl, sandbox.demoKey, '200', 'fork', out, '1000', '0'], NOW)].map(quote).join(' ');
    const child = spawn('script', ['-qec', line, '/dev/null'], { env: { ...env, TERM: 'xterm' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
      child.on('close', (c) => (clearTimeout(timer), resolve(c)));
    });
    expect(code, output).toBe(5);
    // stderr is a terminal: lines are fitted to its width.
    expect(output.replace(/\s+/g, ' ')).toMatch(/Stopping node: SIGTERM to it and the processes it started, SIGKILL after 1s/);
    expect(alive(join(out, 'pid'))).toBe(false);
    expect(alive(join(out, 'grandchild'))).toBe(false);
    // The command ignores SIGTERM: the grace ran out, and SIGKILL ended it.
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))).toMatchObject({ outcome: 'stopped', signal: 'SIGKILL', stopped_by: 'SIGKILL' });
  });
});
