// The bundles of the everyday commands (dist/command-NAME.cjs): the launcher sends a command line
// to one only when its command word is that command's, found as the command line's parser finds
// it; and each prints exactly what the whole program prints, for a run and for its help.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { FIXED_CLOCK, runProcess, tempDir, tempDirs } from '../helpers.js';

const launcher = createRequire(import.meta.url)('../../bin/load-bundle.cjs') as { routeOf(argv: string[], routes: unknown): string | undefined };
const routes = JSON.parse(readFileSync('dist/commands.json', 'utf8')) as { commands: string[]; valueFlags: string[] };
const NOW = Date.UTC(2026, 10, 25, 9, 30);
const state = tempDir();
const stateDirs = tempDirs();
let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 100_000 });
  env = { PATH: process.env.PATH, HOME: '/nonexistent-home', NO_COLOR: '1', TZ: 'UTC', TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TALLY_TEST_NOW: String(NOW) };
});
afterAll(async () => {
  await sandbox.close();
  state.remove();
});

const bundleOf = (argv: string[]) => launcher.routeOf(argv, routes)?.replace(/.*\/dist\//, '');

describe('which bundle a command line runs in', () => {
  it('finds the command word past the global options and their values', () => {
    expect(bundleOf(['balance', '--json'])).toBe('command-balance.cjs');
    expect(bundleOf(['--profile', 'usage', 'balance'])).toBe('command-balance.cjs');
    expect(bundleOf(['--timeout', '5', '--json', 'status'])).toBe('command-status.cjs');
    expect(bundleOf(['--tz=UTC', 'usage', '--bucket', 'hour'])).toBe('command-usage.cjs');
    expect(bundleOf(['--jq', '.balance', 'balance'])).toBe('command-balance.cjs');
  });

  it('leaves everything else to the whole program', () => {
    for (const argv of [[], ['--help'], ['help', 'balance'], ['demo'], ['mcp'], ['budget', 'list'], ['--', 'balance'], ['--profile', 'balance'], ['balanc']]) expect(bundleOf(argv), argv.join(' ')).toBeUndefined();
    for (const name of routes.commands) expect(existsSync(`dist/command-${name}.cjs`), name).toBe(true);
  });
});

/** What a bundle prints for a command line, run as the launcher runs it (the whole program when `file` is dist/main.cjs). */
function runIn(file: string, argv: string[], stateDir: string) {
  const script = `require(${JSON.stringify(`${process.cwd()}/bin/load-bundle.cjs`)}).load(${JSON.stringify(`${process.cwd()}/${file}`)}).main(${JSON.stringify(argv)}).then((code) => { process.exitCode = code; })`;
  return runProcess(process.execPath, ['--require', FIXED_CLOCK, '-e', script], { env: { ...env, TALLY_CONFIG_DIR: stateDir } });
}

describe('each command bundle prints what the whole program prints', () => {
  const lines: Record<string, string[][]> = {
    balance: [['balance', '--json'], ['balance', '--help']],
    usage: [['usage', '--json'], ['usage', '--bucket', 'hour', '--since', '6h']],
    status: [['status', '--json']],
    forecast: [['forecast']],
    check: [['check', '--min-balance', '1', '--max-daily-used', '1%']],
    logs: [['logs', '--since', '1d', '--json']],
    models: [['models', '--json']],
    pricing: [['pricing', '--model', 'gpt-5*']],
  };
  it('covers every command that has a bundle', () => {
    expect(Object.keys(lines).sort()).toEqual([...routes.commands].sort());
  });
  it.each(Object.entries(lines).flatMap(([name, argvs]) => argvs.map((argv) => [name, argv] as const)))('%s: %j', async (name, argv) => {
    // Each in a state folder of its own: neither finds what the other cached.
    const [own, whole] = await Promise.all([runIn(`dist/command-${name}.cjs`, argv, stateDirs()), runIn('dist/main.cjs', argv, stateDirs())]);
    // The two runs ask the same gateway: whichever is second may be answered from its cache, and says so.
    const same = (text: string) => text.replace(/"cache": "(HIT|MISS)"/g, '"cache": _').replace(/(fresh: computed by the gateway for this request|cached: the gateway answered from its cache \(polls within its cache period get the same window\))/g, '_');
    expect(same(own.stderr)).toBe(same(whole.stderr));
    expect(same(own.stdout)).toBe(same(whole.stdout));
    expect(own.code).toBe(whole.code);
    expect(own.stdout.length).toBeGreaterThan(20);
  });
});
