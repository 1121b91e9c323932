// The single executable (npm run build:binary) answers exactly as `node bin/tally.js` does: the
// same stdout, stderr and exit code, run for run, against the same sandbox on the same clock:
// --version, balance, usage, status, --jq (jq inside the binary), schema, an MCP session over a
// pipe, the statusline from its cache (the fast path), a usage error. It reads nothing from beside
// itself and writes only to the state folder.
// TALLY_TEST_BINARY names the binary (.ci/run builds it and sets it); without it the file is
// skipped, saying how to include it.
import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { FIXED_CLOCK, runProcess, runTally, tempDir, skipWithout } from '../helpers.js';

const given = process.env.TALLY_TEST_BINARY;
if (!given && process.env.CI) throw new Error('TALLY_TEST_BINARY is not set: .ci/run builds the single executable (npm run build:binary) and names it');
if (!given) console.warn('binary: the single executable is not named: skipped. Run `npm run build:binary` and set TALLY_TEST_BINARY to the path it prints to include it.');

const NOW = Date.UTC(2026, 10, 25, 9, 30);
const state = tempDir();
const away = tempDir();
let sandbox: Sandbox;
let binary: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  if (!given) return;
  // Alone in a folder of its own, away from the checkout: nothing beside it to lean on.
  binary = join(away.path, 'tally');
  copyFileSync(resolve(given), binary);
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000 });
  env = { PATH: '/usr/bin:/bin', HOME: '/nonexistent-home', NO_COLOR: '1', TZ: 'UTC', TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TALLY_TEST_NOW: String(NOW) };
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  state.remove();
  away.remove();
});

/**
 * The binary's run and the package's, of the same command line with the same input. The
 * gateway remembers (its own cache: "fresh" the first time, "cached" after), so the package runs
 * it once first and both runs meet the gateway in the same state.
 */
async function both(args: string[], input?: string) {
  if (input === undefined) await runTally(args, { env, now: NOW, cwd: away.path, timeoutMs: 30_000 });
  const fromBinary = await runProcess(binary, args, { env: { ...env, NODE_OPTIONS: `--require ${FIXED_CLOCK}` }, input, cwd: away.path, timeoutMs: 30_000 });
  const fromPackage = await runTally(args, { env, now: NOW, input, cwd: away.path, timeoutMs: 30_000 });
  return { fromBinary, fromPackage };
}

/**
 * Output without the projections, which move with the second each run reads the clock at (today's
 * and the month's): in JSON (a document, or one inside an MCP answer's text) and on a panel line.
 */
function still(out: string): string {
  return out
    .replace(/(\\?"(?:projected|projected_month_end|low|high|middle|limit_reached_at)\\?":)(\\?"[^"\\]*\\?"|null)/g, '$1null')
    .replace(/^.*projected.*$/gm, (line) => line.replace(/¥[\d,.]+/g, '¥…').replace(/at \d\d:\d\d/g, 'at …'));
}

describe.skipIf(skipWithout(given))('the single executable', () => {
  const same = [
    ['--version'],
    ['balance'],
    ['balance', '--json'],
    ['usage', '--since', '7d'],
    ['usage', '--since', '3d', '--by', 'model', '--json'],
    ['status'],
    ['status', '--json'],
    ['balance', '--jq', '.balance'],
    ['usage', '--since', '7d', '--jq', '[.buckets // .series // empty] | length'],
    ['schema'],
    ['schema', 'usage'],
    ['models', '--prices'],
    // The fast answers' completion part, and lines an everyday command's bundle leaves to the whole program.
    ['complete', '--', 'usage', '--b'],
    ['balance', '--demo', '--json'],
    ['balance', '--help'],
    ['usage', '--since', 'yesterday-ish'],
    ['no-such-command'],
  ];
  it.each(same.map((args) => [args.join(' '), args]))('answers `tally %s` as node bin/tally.js does', async (_, args) => {
    const { fromBinary, fromPackage } = await both(args as string[]);
    expect({ code: fromBinary.code, stdout: still(fromBinary.stdout), stderr: fromBinary.stderr }).toEqual({ code: fromPackage.code, stdout: still(fromPackage.stdout), stderr: fromPackage.stderr });
    if (args[0] !== 'no-such-command' && args[2] !== 'yesterday-ish') expect(fromBinary.code, fromBinary.stderr).toBe(0);
  });

  it('serves an MCP session over a pipe: initialize, then a tool call, each answered as the package answers', async () => {
    const session = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'binary-test', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_usage', arguments: { since: '7d' } } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_status', arguments: {} } },
    ];
    const { fromBinary, fromPackage } = await both(['mcp'], `${session.map((m) => JSON.stringify(m)).join('\n')}\n`);
    expect(fromBinary.code, fromBinary.stderr).toBe(0);
    const byId = (out: string) => Object.fromEntries(out.trim().split('\n').map((line) => [JSON.parse(line).id, JSON.parse(line)]));
    const answers = byId(fromBinary.stdout);
    expect(Object.keys(answers).sort()).toEqual(['1', '2', '3']);
    expect(byId(still(fromBinary.stdout))).toEqual(byId(still(fromPackage.stdout)));
    expect(JSON.parse(answers[3].result.content[0].text).balance.currency).toBe('CNY');
  });

  it('answers the statusline from the cache the full program left, as the package does', async () => {
    // both() runs the package first: the full program fetches and leaves the cache; then each answers from it.
    const { fromBinary, fromPackage } = await both(['statusline']);
    expect(fromBinary).toMatchObject({ code: 0, stdout: fromPackage.stdout, stderr: fromPackage.stderr });
    expect(fromBinary.stdout).toContain('¥');
  });

  it("starts its background refresh as itself (a single executable's argv[1] repeats its own path): a guard that could not wait for a slow gateway leaves the figures for the next", async () => {
    const slow = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000 });
    const folder = tempDir();
    try {
      slow.faults.push({ kind: 'slow', delayMs: 2000, times: Infinity });
      const own = { ...env, TALLY_CONFIG_DIR: folder.path, TALLY_BASE_URL: slow.baseUrl, NODE_OPTIONS: `--require ${FIXED_CLOCK}` };
      const first = await runProcess(binary, ['guard', '--max-daily-used', '0.01'], { env: own, input: '{"session_id":"s1","hook_event_name":"PreToolUse"}', cwd: away.path, timeoutMs: 30_000 });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toMatch(/asked again in the background/);
      const written = () => existsSync(join(folder.path, 'cache')) && readdirSync(join(folder.path, 'cache')).some((name) => name.startsWith('guard-') && name.endsWith('.json'));
      for (let i = 0; i < 150 && !written(); i++) await new Promise((r) => setTimeout(r, 200));
      expect(written()).toBe(true);
    } finally {
      await slow.close();
      folder.remove();
    }
  }, 60_000);

  it('writes nothing beside itself: its folder holds the binary alone', () => {
    expect(readdirSync(away.path)).toEqual(['tally']);
    expect(existsSync(join(state.path, 'cache', 'code'))).toBe(true); // the package's runs made their code caches here
  });
});
