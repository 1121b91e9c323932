// tally mcp as clients use it: the SDK's own client over stdio against the built binary and the
// sandbox (every tool listed and called, each structuredContent valid against the schema `tally
// schema` publishes), bad input and a failing gateway as tool errors that leave the server up,
// and the Streamable HTTP transport with its Origin check.
import { manualText } from '../support/manual.js';
import { spawn } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import Ajv2020 from 'ajv/dist/2020.js';
import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { binaryArgs, NODE, runProcess, tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30);
const state = tempDir();
let sandbox: Sandbox;
let client: Client;
let env: Record<string, string>;

const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ allErrors: true, strict: false });
for (const file of readdirSync('schemas')) ajv.addSchema(JSON.parse(readFileSync(`schemas/${file}`, 'utf8')));
const validate = (schema: string, value: unknown) => {
  const check = ajv.getSchema(`https://tally.dev/schemas/${schema}.schema.json`)!;
  return check(value) ? [] : check.errors;
};

beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000 });
  env = { PATH: process.env.PATH!, HOME: '/nonexistent-home', TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TALLY_TEST_NOW: String(NOW), TZ: 'UTC' };
  // A budget, so that get_budgets and the report have one to show.
  await new Promise((resolve) => spawn(NODE, binaryArgs(['budget', 'set', 'monthly', '--amount', '500', '--period', 'month'], NOW), { env, stdio: 'ignore' }).on('close', resolve));
  client = new Client({ name: 'tally-test', version: '1.0.0' });
  const [command, ...args] = [NODE, ...binaryArgs(['mcp'], NOW)];
  await client.connect(new StdioClientTransport({ command: command!, args, env, stderr: 'pipe' }));
});
afterAll(async () => {
  await client?.close();
  await sandbox?.close();
  state.remove();
});

const ARGUMENTS: Record<string, Record<string, unknown>> = {
  get_usage: { since: '7d' },
  get_spend_by_model: { since: '3d' },
  compare_periods: { last: 'week' },
  find_anomalies: { since: '30d' },
  check_conditions: { min_balance: '100000000', max_daily_used: '99%' },
  list_prices: { model: 'gpt-5*' },
  whatif_swap: { swap: ['claude-sonnet-4.5=deepseek-chat'], since: '7d' },
  get_report: { period: 'week' },
};

describe('tally mcp over stdio', () => {
  it('answers every request of a client that writes them all and closes stdin (a pipe), then exits 0', async () => {
    const session = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_status', arguments: {} } },
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
    ];
    const result = await runProcess(NODE, binaryArgs(['mcp'], NOW), { env, input: session.map((m) => JSON.stringify(m)).join('\n') + '\n' });
    expect(result.code, result.stderr).toBe(0);
    const answers = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: number; result: { content?: { text: string }[] } });
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3]);
    expect(JSON.parse(answers.find((a) => a.id === 2)!.result.content![0]!.text).balance.currency).toBe('CNY');
  });

  it('lists every tool, read-only, with an output schema equal to the one tally schema publishes', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-z]+_[a-z_]+$/);
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(tool.description).toContain('never instructions');
      const spec = TOOLS.find((t) => t.name === tool.name)!;
      const names = typeof spec.schema === 'string' ? [spec.schema] : spec.schema;
      const published = names.map((name) => JSON.parse(readFileSync(`schemas/${name}.schema.json`, 'utf8')));
      const { $defs, ...own } = tool.outputSchema as Record<string, unknown>;
      if (published.length > 1) {
        // Either of two documents, by the tool's inputs: each embedded whole under its own $id.
        expect(own).toEqual({ type: 'object', anyOf: published.map((p) => ({ $ref: p.$id })) });
        for (const p of published) expect(($defs as Record<string, unknown>)[p.$id.replace('https://tally.dev/schemas/', '')]).toEqual(p);
        continue;
      }
      expect({ ...own, ...($defs && published[0].$defs ? { $defs: published[0].$defs } : {}) }).toEqual(published[0]);
      // A key or token is never an input.
      expect(Object.keys((tool.inputSchema as { properties: object }).properties).filter((p) => /api_?key|token|secret|credential/i.test(p))).toEqual([]);
    }
  });

  it.each(TOOLS.map((t) => t.name))('%s answers with one text block holding its document alone, valid against its schema', async (name) => {
    const spec = TOOLS.find((t) => t.name === name)!;
    const result = await client.callTool({ name, arguments: ARGUMENTS[name] ?? {} });
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
    const names = typeof spec.schema === 'string' ? [spec.schema] : spec.schema;
    expect(names.some((schema) => (validate(schema, result.structuredContent) ?? []).length === 0), JSON.stringify(names.map((schema) => validate(schema, result.structuredContent)))).toBe(true);
    const content = result.content as { type: string; text: string }[];
    expect(content).toHaveLength(1);
    // A client that parses the text gets the document (every digit as the command printed it).
    expect(JSON.parse(content[0]!.text)).toEqual(result.structuredContent);
    expect(content[0]!.text).not.toContain(sandbox.demoKey);
  });

  it('a failed condition is a result with its verdict, not an error', async () => {
    const result = await client.callTool({ name: 'check_conditions', arguments: { min_balance: '100000000' } });
    expect(result.isError ?? false).toBe(false);
    expect((result.structuredContent as { ok: boolean }).ok).toBe(false);
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toMatchObject({ ok: false });
  });

  it('bad input is a tool error with the message, and the server keeps serving', async () => {
    const bad = await client.callTool({ name: 'get_usage', arguments: { since: 'yesterdy' } });
    expect(bad.isError).toBe(true);
    expect(JSON.parse((bad.content as { text: string }[])[0]!.text).error.message).toMatch(/^since "yesterdy" is not a time/);
    const flag = await client.callTool({ name: 'get_usage', arguments: { since: '--profile=other' } });
    expect(flag.isError).toBe(true);
    const unknown = await client.callTool({ name: 'get_usage', arguments: { api_key: 'sbx-sk-x' } }).catch((error: Error) => ({ isError: true, content: [{ text: error.message }] }));
    expect(unknown.isError).toBe(true);
    const ok = await client.callTool({ name: 'get_usage', arguments: {} });
    expect(ok.isError ?? false).toBe(false);
  });

  it('a gateway that fails is a tool error, and the next call is asked again', async () => {
    sandbox.faults.push({ kind: 'html', path: '/v1/open/balance', times: 50 });
    const failed = await client.callTool({ name: 'get_forecast', arguments: { days: '5' } });
    sandbox.faults.splice(0);
    expect(failed.isError).toBe(true);
    expect((failed.content as { text: string }[])[0]!.text).toMatch(/unexpected response|HTML/i);
    // A failure is not kept: the same call asked again is answered.
    const again = await client.callTool({ name: 'get_forecast', arguments: { days: '5' } });
    expect(again.isError ?? false, JSON.stringify(again.content)).toBe(false);
  });
});

describe('tally mcp --http', () => {
  it('serves the Streamable HTTP transport on loopback and refuses another origin', async () => {
    const child = spawn(NODE, binaryArgs(['mcp', '--http', '127.0.0.1:0'], NOW), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let err = '';
        child.stderr.on('data', (d) => {
          err += d;
          const m = /on (http:\/\/\S+\/mcp)/.exec(err);
          if (m) resolve(m[1]!);
        });
        child.on('close', () => reject(new Error(err)));
      });
      const http = new Client({ name: 'tally-test', version: '1.0.0' });
      await http.connect(new StreamableHTTPClientTransport(new URL(url)));
      const result = await http.callTool({ name: 'get_status', arguments: {} });
      expect(validate('status', result.structuredContent)).toEqual([]);
      await http.close();
      const rebinding = await fetch(url, { method: 'POST', headers: { origin: 'http://evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
      expect(rebinding.status).toBe(403);
      // A page on another name that resolves to this machine (DNS rebinding) sends its own Host.
      const { request } = await import('node:http');
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const req = request(url, { method: 'POST', headers: { host: 'evil.example:80', 'content-type': 'application/json' } }, (res) => resolve(res.statusCode));
        req.on('error', reject);
        req.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
      });
      expect(status).toBe(403);
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe("the README's MCP configuration", () => {
  it('is JSON whose server entry starts tally mcp, which answers a client', async () => {
    const readme = manualText();
    const block = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as { mcpServers?: Record<string, { command: string; args: string[] }> }).find((b) => b.mcpServers);
    const entry = block!.mcpServers!.tally!;
    expect(entry.command).toBe('tally');
    const other = new Client({ name: 'readme', version: '1.0.0' });
    // `tally` as installed: the built binary, with the arguments the block gives it.
    await other.connect(new StdioClientTransport({ command: NODE, args: binaryArgs(entry.args, NOW), env, stderr: 'pipe' }));
    const { tools } = await other.listTools();
    expect(tools.length).toBe(TOOLS.length);
    await other.close();
  });
});

describe('tally mcp keeps every digit', () => {
  it("a tool's text holds the document as the command printed it: a number no double holds, a trailing zero", async () => {
    const { createServer, request } = await import('node:http');
    // The sandbox, with two fields a double cannot hold as sent added to its balance record.
    const gateway = createServer((req, res) => {
      const upstream = request(new URL(req.url!, sandbox.baseUrl), { method: req.method, headers: req.headers }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          let body = Buffer.concat(chunks).toString('utf8');
          if (req.url!.startsWith('/v1/open/balance') && answer.statusCode === 200) body = `${body.trim().slice(0, -1)},"account_no":123456789012345678901,"ratio":0.1000}`;
          const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(body)) };
          res.writeHead(answer.statusCode!, headers).end(body);
        });
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    const own = new Client({ name: 'tally-digits', version: '1.0.0' });
    const ownState = tempDir();
    try {
      const [command, ...args] = [NODE, ...binaryArgs(['mcp'], NOW)];
      const base = `http://127.0.0.1:${(gateway.address() as { port: number }).port}`;
      await own.connect(new StdioClientTransport({ command: command!, args, env: { ...env, TALLY_BASE_URL: base, TALLY_CONFIG_DIR: ownState.path }, stderr: 'pipe' }));
      const result = await own.callTool({ name: 'get_status', arguments: {} });
      expect(result.isError).toBeFalsy();
      const text = (result.content as { type: string; text: string }[])[0]!.text;
      expect(text).toContain('"account_no":123456789012345678901');
      expect(text).toContain('"ratio":0.1000');
    } finally {
      await own.close();
      gateway.closeAllConnections();
      gateway.close();
      ownState.remove();
    }
  });
});
