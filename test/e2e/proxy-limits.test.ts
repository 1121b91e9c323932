// tally proxy's limits when the gateway's log is late (the sandbox books each call 30 s after it
// is made): a burst of concurrent calls in one session is held to --max-session-spend and all of
// them to --max-spend by the gateway's own counter, whatever the log says yet; another session
// goes on; --json-log says each call (never a body, a key or the token); SIGTERM lets a stream in
// flight end and counts it.
import { manualText } from '../support/manual.js';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { Decimal } from '../../src/domain/money.js';
import { tempDir } from '../helpers.js';
import { type ProxyProcess, startProxyProcess } from '../support/proxy-process.js';

const work = tempDir();
let sandbox: Sandbox;
let started: ProxyProcess;
let proxy: ChildProcess;
let url: string;
let token: string;
const jsonLog = join(work.path, 'calls.ndjson');

async function used(): Promise<Decimal> {
  const response = await fetch(`${sandbox.baseUrl}/v1/open/balance`, { headers: { authorization: `Bearer ${sandbox.demoKey}` } });
  return new Decimal(((await response.json()) as { api_key: { daily_cost_used: string } }).api_key.daily_cost_used);
}

// One agent per connection, as SDKs keep them.
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(new URL(path, url), { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers } }, (response) => {
      let text = '';
      response.on('data', (d) => (text += d));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}
const chat = { model: 'deepseek-chat', messages: [{ role: 'user', content: 'count to three' }], max_tokens: 4000 };

beforeAll(async () => {
  sandbox = await startSandbox({ accountLimit: 100_000, logLagSeconds: 30 });
  const tokenFile = join(work.path, 'token');
  started = await startProxyProcess(['--max-session-spend', '0.05', '--max-spend', '0.08', '--json-log', jsonLog], { PATH: process.env.PATH, HOME: '/nonexistent-home', TALLY_CONFIG_DIR: join(work.path, 'state'), TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey }, tokenFile);
  ({ child: proxy, url, token } = started);
}, 30_000);
afterAll(async () => {
  if (proxy.exitCode === null) proxy.kill('SIGKILL');
  agent.destroy();
  await sandbox.close();
  work.remove();
});

describe('tally proxy: limits that hold while the log is late', () => {
  it("holds a session's burst to --max-session-spend and every call to --max-spend by the gateway's own counter; another session goes on", async () => {
    const before = await used();
    const burst = await Promise.all(Array.from({ length: 40 }, () => post('/v1/chat/completions', chat, { 'x-claude-code-session-id': 'session-a' })));
    const served = burst.filter((a) => a.status === 200).length;
    expect(served).toBeGreaterThan(0);
    expect(burst.every((a) => a.status === 200 || a.status === 402)).toBe(true);
    const refusal = JSON.parse(burst.find((a) => a.status === 402)!.body) as { error: { code: string; message: string } };
    expect(refusal.error.code).toBe('tally_limit');
    expect(refusal.error.message).toMatch(/^tally proxy refused this call: --max-session-spend ¥0\.05 is 0\.05 \(CNY\) for session "session-a"; spent [\d.]+ so far/);
    const sessionSpend = (await used()).minus(before);
    expect(sessionSpend.lte('0.05')).toBe(true);
    // Another session has its own limit, within the proxy's.
    const other = await Promise.all(Array.from({ length: 40 }, () => post('/v1/chat/completions', chat, { 'x-tally-session': 'session-b' })));
    expect(other.some((a) => a.status === 200)).toBe(true);
    expect(other.some((a) => a.status === 402)).toBe(true);
    expect((await used()).minus(before).lte('0.08')).toBe(true);
  });

  it('says each call in --json-log, with no body, key or token', () => {
    const lines = readFileSync(jsonLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBe(80);
    expect(lines.filter((l) => l.outcome === 'refused').every((l) => typeof l.limit === 'string' && (l.session === 'session-a' || l.session === 'session-b'))).toBe(true);
    expect(lines.filter((l) => l.outcome === 'forwarded').every((l) => l.status === 200 && typeof l.cost === 'string')).toBe(true);
    const text = readFileSync(jsonLog, 'utf8');
    for (const secret of [sandbox.demoKey, token, 'count to three']) expect(text).not.toContain(secret);
  });

  it('stops on SIGTERM after the stream in flight, counting it', async () => {
    const flowing = post('/v1/messages', { model: 'claude-sonnet-4.5', max_tokens: 1, stream: true, messages: [{ role: 'user', content: 'x' }] }, { 'x-tally-session': 'session-c' });
    await new Promise((resolve) => setTimeout(resolve, 60));
    const closed = new Promise<number | null>((resolve) => proxy.on('close', resolve));
    proxy.kill('SIGTERM');
    const answer = await flowing;
    expect(answer.status).toBe(200);
    expect(answer.body.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
    expect(await closed).toBe(0);
    expect(started.stderr()).toMatch(/tally proxy: stopped; \d+ calls forwarded: ¥[\d,.]+ \(0 booked by the gateway's log, ¥0\.00; the others estimated from their usage at the catalog's prices\); \d+ refused/);
  });
});

describe("the README's Claude Code settings for the proxy", () => {
  it('work as Claude Code uses them: the proxy command as printed, the apiKeyHelper read by a shell, a messages call through ANTHROPIC_BASE_URL', async () => {
    const readme = manualText();
    const block = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('apiKeyHelper'))!;
    const settings = JSON.parse(block) as { env: { ANTHROPIC_BASE_URL: string }; apiKeyHelper: string };
    const command = /with `(tally proxy --listen [^`]+)` running/.exec(readme.replace(/\n/g, ' '))![1]!;
    const printed = new URL(settings.env.ANTHROPIC_BASE_URL);
    expect(command).toContain(`--listen ${printed.host}`);
    // The README's port may be taken here: the same command on a free one.
    const home = join(work.path, 'home');
    const words = command.replace(`--listen ${printed.host}`, '--listen 127.0.0.1:0').replace(/~\//g, `${home}/`).split(' ').slice(1);
    const env = { PATH: process.env.PATH, HOME: home, TALLY_CONFIG_DIR: join(work.path, 'state-readme'), TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey };
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(home, '.config'), { recursive: true });
    const tokenAt = words.indexOf('--token-file');
    const launched = await startProxyProcess(words.slice(1).filter((_w, i) => i !== tokenAt - 1 && i !== tokenAt), env, words[tokenAt + 1]!);
    const child = launched.child;
    try {
      const base = launched.url;
      const { execFileSync } = await import('node:child_process');
      const key = execFileSync('bash', ['-c', settings.apiKeyHelper], { env: { PATH: process.env.PATH, HOME: home } }).toString().trim();
      const answer = await fetch(`${base}/v1/messages`, { method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'x-claude-code-session-id': 'readme' }, body: JSON.stringify({ model: 'claude-sonnet-4.5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }) });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { type: string }).type).toBe('message');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
