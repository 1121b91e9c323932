// tally proxy as the built binary in front of the sandbox, driven with raw HTTP: the local token
// (never the key), the Host a page of another site would use refused, answers passed back
// unchanged, a stream passed on and priced, and the call that would pass --max-spend refused with
// 402 in the interface's own shape before it reaches the gateway, so the gateway's own counter
// never passes the limit; Ctrl-C stops it after the calls in flight, saying what they cost.
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { Decimal } from '../../src/domain/money.js';
import { runTally, tempDir } from '../helpers.js';
import { type ProxyProcess, startProxyProcess } from '../support/proxy-process.js';

const work = tempDir();
let sandbox: Sandbox;
let started: ProxyProcess;
let proxy: ChildProcess;
let url: string;
let token: string;
/** The key's spend today when the proxy started. */
let usedAtStart: Decimal;

/** The key's spend today as the gateway counts it (charged as each call ends). */
async function used(): Promise<Decimal> {
  const response = await fetch(`${sandbox.baseUrl}/v1/open/balance`, { headers: { authorization: `Bearer ${sandbox.demoKey}` } });
  return new Decimal(((await response.json()) as { api_key: { daily_cost_used: string } }).api_key.daily_cost_used);
}

/** A raw request to the proxy: its status, headers and body as they came. */
function call(path: string, options: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; chunks: number }> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const request = http.request(target, { method: options.method ?? (options.body ? 'POST' : 'GET'), headers: { 'content-type': 'application/json', ...options.headers } }, (response) => {
      let body = '';
      let chunks = 0;
      response.on('data', (d) => {
        chunks++;
        body += d;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body, chunks }));
    });
    request.on('error', reject);
    request.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  });
}
const auth = () => ({ authorization: `Bearer ${token}` });
const opus = (extra: Record<string, unknown> = {}) => ({ model: 'claude-opus-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20000, ...extra });

beforeAll(async () => {
  sandbox = await startSandbox({ accountLimit: 100_000 });
  const tokenFile = join(work.path, 'token');
  started = await startProxyProcess(['--max-spend', '25'], { PATH: process.env.PATH, HOME: '/nonexistent-home', TALLY_CONFIG_DIR: join(work.path, 'state'), TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey }, tokenFile);
  ({ child: proxy, url, token } = started);
  expect(started.out).toBe(`TALLY_PROXY_URL=${url}\nTALLY_PROXY_TOKEN_FILE=${tokenFile}\n`);
  expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
  usedAtStart = await used();
}, 30_000);
afterAll(async () => {
  if (proxy.exitCode === null) proxy.kill('SIGKILL');
  await sandbox.close();
  work.remove();
});

describe('tally proxy: a spending firewall in front of the gateway', () => {
  it('serves on loopback, and takes only its local token: no token, a wrong one, or the gateway key itself is 401', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: `Bearer ${sandbox.demoKey}` }] as Record<string, string>[]) {
      const answer = await call('/v1/models', { headers });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { type: 'authentication_error', code: 'tally_token' } });
      expect(answer.body).not.toContain(sandbox.demoKey);
    }
    // The Anthropic SDKs send x-api-key: taken as well.
    expect((await call('/v1/models', { headers: { 'x-api-key': token } })).status).toBe(200);
  });

  it('refuses a Host or an Origin that is not its own (DNS rebinding), and paths outside /v1/', async () => {
    expect((await call('/v1/models', { headers: { ...auth(), host: 'evil.example:80' } })).status).toBe(403);
    expect((await call('/v1/models', { headers: { ...auth(), origin: 'http://evil.example' } })).status).toBe(403);
    expect((await call('/v1/models', { headers: { ...auth(), origin: url } })).status).toBe(200);
    expect((await call('/api/pricing', { headers: auth() })).status).toBe(404);
  });

  it("passes the gateway's answer back unchanged", async () => {
    const through = await call('/v1/models', { headers: auth() });
    const direct = await fetch(`${sandbox.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${sandbox.demoKey}` } });
    expect(through.status).toBe(200);
    expect(through.body).toBe(await direct.text());
  });

  it('passes a stream on event by event and prices it from its last usage event', async () => {
    const answer = await call('/v1/chat/completions', { headers: auth(), body: opus({ stream: true, max_tokens: 100 }) });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/event-stream');
    expect(answer.chunks).toBeGreaterThan(1);
    expect(answer.body).toMatch(/"usage":\{"prompt_tokens":\d+,"completion_tokens":100/);
    expect(answer.body.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('passes a messages stream (the Anthropic interface) on event by event, priced from its start and last delta', async () => {
    const answer = await call('/v1/messages', { headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01' }, body: { model: 'claude-sonnet-4.5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] } });
    expect(answer.status).toBe(200);
    expect(answer.chunks).toBeGreaterThan(3);
    expect(answer.body).toMatch(/^event: message_start\ndata: \{"type":"message_start","message":\{"id":"msg_/);
    expect(answer.body).toMatch(/event: message_delta\ndata: \{"type":"message_delta","delta":\{"stop_reason":"end_turn"\},"usage":\{"output_tokens":64\}\}\n\n/);
    expect(answer.body.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
  });

  it('refuses with 402, in the interface\'s shape, the call that would pass --max-spend: the gateway\'s counter never passes the limit', async () => {
    const before = await used();
    const statuses: number[] = [];
    let refusal = '';
    for (let i = 0; i < 10; i++) {
      const answer = await call('/v1/chat/completions', { headers: auth(), body: opus() });
      statuses.push(answer.status);
      if (answer.status === 402) {
        refusal = answer.body;
        break;
      }
    }
    expect(statuses.at(-1)).toBe(402);
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
    expect(JSON.parse(refusal)).toMatchObject({ error: { type: 'insufficient_quota', code: 'tally_limit', message: expect.stringMatching(/^tally proxy refused this call: --max-spend ¥25\.00 is 25 \(CNY\); spent [\d.]+ so far, and this call could cost up to [\d.]+\. To go on, start tally proxy again with a higher --max-spend\.$/) } });
    // Everything the gateway charged through the proxy, the stream's call included, stays within the limit.
    expect((await used()).minus(before).lte(25)).toBe(true);
  });

  it('shows its live figures in status (and so to the MCP server), metrics and the status line, and holds the profile: a second proxy for it refuses to start', async () => {
    const env = { PATH: process.env.PATH, HOME: '/nonexistent-home', TALLY_CONFIG_DIR: join(work.path, 'state'), TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey };
    // The figures are written as the ledger moves (within half a second).
    // The reconcile loop books each call from the key's log as it lands (a poll every 5 s): then the
    // proxy's figure is the gateway's own counter to the last digit, the estimates beside it.
    type Figures = { url: string; calls: number; refused: number; spent: string; estimated: string; booked: string; booked_calls: number; awaiting: number };
    let doc: { proxy?: Figures } = {};
    const settled = () => doc.proxy !== undefined && doc.proxy.refused >= 1 && doc.proxy.booked_calls > 0 && doc.proxy.awaiting === 0;
    for (let i = 0; i < 60 && !settled(); i++) {
      doc = JSON.parse((await runTally(['status', '--json'], { env })).stdout) as typeof doc;
      if (!settled()) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(doc.proxy).toMatchObject({ url, refused: 1 });
    expect(doc.proxy!.calls).toBeGreaterThan(1);
    expect(doc.proxy!.booked_calls).toBeGreaterThan(1);
    expect(doc.proxy!.spent).toBe(doc.proxy!.booked);
    expect(doc.proxy!.booked).toBe((await used()).minus(usedAtStart).toFixed());
    expect(new Decimal(doc.proxy!.estimated).gt(0)).toBe(true);
    expect((await runTally(['status'], { env })).stdout).toMatch(new RegExp(`^Proxy +${url.replace(/[.]/g, '\\.')}: ¥[\\d,.]+ through it since \\d\\d:\\d\\d UTC \\(booked by the log\\), \\d+ calls, 1 refused, ¥0\\.00 in flight$`, 'm'));
    const metrics = (await runTally(['metrics'], { env })).stdout;
    expect(metrics).toMatch(/^tally_proxy_calls_refused\{profile="default"\} 1$/m);
    expect(metrics).toMatch(/^tally_proxy_spend_estimated\{profile="default",currency="CNY"\} \d+(\.\d+)?$/m);
    expect(metrics).toContain(`tally_proxy_spend_booked{profile="default",currency="CNY"} ${doc.proxy!.booked}\n`);
    expect(metrics).toContain(`tally_proxy_spend{profile="default",currency="CNY"} ${doc.proxy!.spent}\n`);
    expect(metrics).toMatch(/^tally_proxy_in_flight\{profile="default",currency="CNY"\} 0$/m);
    // The status line: {proxy} (empty without a proxy), and at the end of the default line.
    expect((await runTally(['statusline', '--format', '{proxy}'], { env })).stdout).toMatch(/^proxy ¥[\d,.]+ \(1 refused\)\n$/);
    expect((await runTally(['statusline'], { env })).stdout).toMatch(/ · proxy ¥[\d,.]+ \(1 refused\)\n$/);
    const second = await runTally(['proxy', '--max-spend', '5'], { env, timeoutMs: 20_000 });
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`a tally proxy already runs for profile "default" at ${url}`);
  });

  it('stops on Ctrl-C after the calls in flight, saying what they cost', async () => {
    const closed = new Promise<number | null>((resolve) => proxy.on('close', resolve));
    proxy.kill('SIGINT');
    expect(await closed).toBe(130);
    expect(started.stderr(), started.stderr()).toMatch(/tally proxy: stopped; \d+ calls forwarded: ¥[\d,.]+ \((\d+) booked by the gateway's log, ¥[\d,.]+; the others estimated from their usage at the catalog's prices\); 1 refused/);
    expect(started.stderr()).not.toContain(sandbox.demoKey);
    // Stopped: status shows no proxy.
    const env = { PATH: process.env.PATH, HOME: '/nonexistent-home', TALLY_CONFIG_DIR: join(work.path, 'state'), TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey };
    expect(JSON.parse((await runTally(['status', '--json'], { env })).stdout).proxy).toBeUndefined();
  });
});
