// The launcher (bin/load-bundle.cjs): an everyday command runs in its own bundle (the whole program
// runs the rest, and any line whose bundle is damaged); the code cache of each Node version is
// made on its first run, in the state folder, per bundle and command, named by the bundle file as
// it is (a bundle changed in place, even to the same length, gets a new one); a cache V8 rejects is made again; a folder that cannot
// be written costs only time. A damaged install (the program cut, emptied or a FIFO, the files
// beside it not what the build wrote, a cache that is a FIFO) never hangs and never prints a
// stack trace without --debug: what can run runs, and what cannot says how to mend it.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { SourceMap, createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { FIXED_CLOCK, NODE, runProcess, skipWithout, tempDir, tempDirs } from '../helpers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const node22 = `${root}/scripts/nodes/node_modules/node22/bin/node`;
// The pinned Node 22 (scripts/nodes, installed by .ci/run): where it is not here, the test of a second Node's cache is skipped, and says so.
const hasNode22 = existsSync(node22);
if (!hasNode22) console.warn('bundles: the pinned Node 22 is not installed, a second Node\'s code cache is not tried: `npm ci --prefix scripts/nodes` to include it.');
const installs = tempDirs();
const nodeVersion = execFileSync(NODE, ['--version']).toString().trim();

/** A copy of what the package installs (bin, dist, schemas, package.json, its node_modules), to damage. */
function installed(): string {
  const dir = installs();
  for (const part of ['bin', 'dist', 'schemas', 'package.json']) cpSync(join(root, part), join(dir, part), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** An install whose routes are none: every line runs in the whole program (what a command's bundle is held to). */
function wholeProgramOnly(): string {
  const dir = installed();
  writeFileSync(join(dir, 'dist', 'commands.json'), '{}');
  return dir;
}

const state = tempDir();
// A gateway for the command lines (not --demo: its lines run in the whole program, the sandbox is not in a command's bundle).
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ accountLimit: 100_000 });
});
afterAll(async () => {
  state.remove();
  await sandbox.close();
});
const gateway = () => ({ TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey });
function tally(dir: string, args: string[], options: { node?: string; state?: string; nodeArgs?: string[] } = {}) {
  return runProcess(options.node ?? NODE, [...(options.nodeArgs ?? []), join(dir, 'bin', 'tally.js'), ...args], { env: { PATH: process.env.PATH, HOME: state.path, TALLY_CONFIG_DIR: options.state ?? state.path, NO_COLOR: '1', ...gateway() }, timeoutMs: 20_000 });
}
const cacheFolder = (stateDir: string, version = nodeVersion) => join(stateDir, 'cache', 'code', `${version}-${process.arch}`);

describe('code caches, made where they are used', () => {
  it('are made by the first run of each command on each Node, read by the next, and made again when V8 rejects one', async () => {
    const dir = installed();
    const own = installs();
    expect((await tally(dir, ['balance', '--json'], { state: own })).code).toBe(0);
    expect((await tally(dir, ['pricing', '--json'], { state: own })).code).toBe(0);
    const made = readdirSync(cacheFolder(own)).sort();
    expect(made).toEqual([expect.stringMatching(/^command-balance\.cjs-[0-9a-z]+-[0-9a-z.]+-balance\.cache$/), expect.stringMatching(/^command-pricing\.cjs-[0-9a-z]+-[0-9a-z.]+-pricing\.cache$/)]);
    const balance = join(cacheFolder(own), made[0]!);
    expect(statSync(balance).mode & 0o777).toBe(0o600);
    const written = statSync(balance).mtimeMs;
    // Read, not made again.
    const again = await tally(dir, ['balance', '--json'], { state: own });
    expect(again.code).toBe(0);
    expect(statSync(balance).mtimeMs).toBe(written);
    // One V8 rejects (another Node's, or damaged): the run goes on, and the cache is made again.
    writeFileSync(balance, Buffer.alloc(4096, 7));
    expect((await tally(dir, ['balance', '--json'], { state: own })).code).toBe(0);
    expect(readFileSync(balance).equals(Buffer.alloc(4096, 7))).toBe(false);
  }, 60_000);

  // A V8 setting changed during a run (logs --ndjson and a catalog's fetch keep the young
  // generation small: src/heap.ts) made the cache written at its end one the next run refused, and
  // so every run compiled the whole bundle again: each line here runs twice, and the second run
  // reads the first one's cache (the file is not written again).
  it('are read by the next run of each everyday line, the lines that change a V8 setting while they run too', async () => {
    const dir = installed();
    const lines = [['logs', '--all', '--ndjson', '--since', '3d'], ['pricing', '--refresh', '--json'], ['pricing', '--refresh'], ['balance', '--json'], ['usage', '--since', '7d', '--json'], ['status'], ['forecast'], ['models'], ['check', '--max-daily-used', '100%']];
    for (const line of lines) {
      const own = installs();
      const first = await tally(dir, line, { state: own });
      expect(first.code, `${line.join(' ')}: ${first.stderr}`).toBe(0);
      if (line[0] === 'logs') expect(first.stdout.split('\n').length, 'the export wrote entries').toBeGreaterThan(2);
      const written = () =>
        readdirSync(cacheFolder(own)).map((name) => {
          const { ino, mtimeMs } = statSync(join(cacheFolder(own), name));
          return `${name} ${ino} ${mtimeMs}`;
        });
      const made = written();
      expect(made, line.join(' ')).toHaveLength(1);
      expect((await tally(dir, line, { state: own })).code).toBe(0);
      expect(written(), `${line.join(' ')}: its cache was made again`).toEqual(made);
    }
  }, 120_000);

  it("load no built-in module of Node's while a V8 setting is changed (it would compile from its source), and end the change before the run ends", async () => {
    const dir = installed();
    const own = installs();
    const watch = join(root, 'test', 'support', 'flag-watch.cjs');
    // A catalog fetched with none cached, then again (compared with the cache), and an export: each keeps the young generation small while it works.
    for (const line of [['pricing', '--refresh', '--json'], ['pricing', '--refresh'], ['logs', '--all', '--ndjson', '--since', '3d']]) {
      const run = await tally(dir, line, { state: own, nodeArgs: ['-r', watch] });
      expect(run.code, run.stderr).toBe(0);
      const seen = JSON.parse(/^flag-watch (.*)$/m.exec(run.stderr)?.[1] ?? 'null') as { set: number; loaded: string[] } | null;
      expect(seen?.set, `${line.join(' ')} keeps the young generation small`).toBeGreaterThan(0);
      expect(seen?.loaded, line.join(' ')).toEqual([]);
    }
  }, 60_000);

  it('are made for the fast answers\' parts too (a Tab\'s completion), and read by the next run', async () => {
    const dir = installed();
    const own = installs();
    const first = await tally(dir, ['complete', '--', 'usage', '--b'], { state: own });
    expect([first.code, first.stdout]).toEqual([0, expect.stringContaining('--bucket')]);
    const made = readdirSync(cacheFolder(own));
    expect(made).toEqual([expect.stringMatching(/^fast-complete\.cjs-[0-9a-z]+-[0-9a-z.]+-complete\.cache$/)]);
    const written = statSync(join(cacheFolder(own), made[0]!)).mtimeMs;
    const again = await tally(dir, ['complete', '--', 'usage', '--b'], { state: own });
    expect(again.stdout).toBe(first.stdout);
    expect(statSync(join(cacheFolder(own), made[0]!)).mtimeMs).toBe(written);
  });

  it.skipIf(skipWithout(hasNode22))('are made per Node: another Node makes its own, beside', async () => {
    const dir = installed();
    const own = installs();
    expect((await tally(dir, ['balance', '--json'], { state: own })).code).toBe(0);
    expect((await tally(dir, ['balance', '--json'], { state: own, node: node22 })).code).toBe(0);
    const versions = readdirSync(join(own, 'cache', 'code')).sort();
    expect(versions).toContain(`v22.23.3-${process.arch}`);
    expect(versions).toContain(`${nodeVersion}-${process.arch}`);
  }, 60_000);

  it('follow the bundle\'s content: changed in place to the same length, it gets a new cache and runs as it now is; the old build\'s caches go', async () => {
    const dir = installed();
    const own = installs();
    const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;
    expect((await tally(dir, ['version'], { state: own })).stdout).toMatch(new RegExp(`^tally ${version.replace(/\./g, '\\.')} \\(Node `));
    expect((await tally(dir, ['pricing', '--json'], { state: own })).code).toBe(0);
    const before = readdirSync(cacheFolder(own)).sort();
    expect(before).toHaveLength(2);
    // `version` runs in the bundle the light commands share.
    const local = join(dir, 'dist', 'command-local.cjs');
    const changed = version.replace(/\d/g, '9');
    writeFileSync(local, readFileSync(local, 'utf8').split(JSON.stringify(version)).join(JSON.stringify(changed)));
    expect((await tally(dir, ['version'], { state: own })).stdout).toMatch(new RegExp(`^tally ${changed.replace(/\./g, '\\.')} \\(Node `));
    // The changed bundle's new cache, beside the unchanged bundle's: the cache of the build no longer installed is removed.
    const after = readdirSync(cacheFolder(own)).sort();
    expect(after).toEqual([expect.stringMatching(/^command-local\.cjs-.*-local\.cache$/), expect.stringMatching(/^command-pricing\.cjs-.*-pricing\.cache$/)]);
    expect(before).not.toContain(after[0]);
    expect(before).toContain(after[1]);
    // Another Node's folder unused for a month goes too; one used lately stays.
    const stale = join(own, 'cache', 'code', 'v18.0.0-x64');
    const recent = join(own, 'cache', 'code', 'v21.0.0-x64');
    for (const old of [stale, recent]) {
      mkdirSync(old);
      writeFileSync(join(old, 'main.cjs-0000000000000000-balance.cache'), 'x');
    }
    const monthAgo = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    utimesSync(join(stale, 'main.cjs-0000000000000000-balance.cache'), monthAgo, monthAgo);
    utimesSync(stale, monthAgo, monthAgo);
    expect((await tally(dir, ['status', '--json'], { state: own })).code).toBe(0);
    expect(readdirSync(join(own, 'cache', 'code')).sort()).toEqual([`${nodeVersion}-${process.arch}`, 'v21.0.0-x64'].sort());
  });

  it('are kept per install: two installs sharing a state folder (a global one and npx\'s) never remove each other\'s, an old build\'s go, an install gone a month goes', async () => {
    const one = installed();
    const two = installed();
    const own = installs();
    expect((await tally(one, ['balance', '--json'], { state: own })).code).toBe(0);
    const [first] = readdirSync(cacheFolder(own));
    const firstWritten = statSync(join(cacheFolder(own), first!)).mtimeMs;
    expect((await tally(two, ['balance', '--json'], { state: own })).code).toBe(0);
    expect(readdirSync(cacheFolder(own))).toHaveLength(2);
    // The first install's cache is still there and read as it was: not removed, not made again.
    expect((await tally(one, ['balance', '--json'], { state: own })).code).toBe(0);
    expect(readdirSync(cacheFolder(own))).toContain(first);
    expect(statSync(join(cacheFolder(own), first!)).mtimeMs).toBe(firstWritten);
    // The second install rebuilt in place: its old build's cache goes, the first install's stays.
    const main = join(two, 'dist', 'command-balance.cjs');
    writeFileSync(main, readFileSync(main, 'utf8'));
    expect((await tally(two, ['balance', '--json'], { state: own })).code).toBe(0);
    expect(readdirSync(cacheFolder(own))).toHaveLength(2);
    expect(readdirSync(cacheFolder(own))).toContain(first);
    // An install not run for a month (npx's cache cleared): its caches go with the next write.
    const monthAgo = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    utimesSync(join(cacheFolder(own), first!), monthAgo, monthAgo);
    expect((await tally(two, ['status', '--json'], { state: own })).code).toBe(0);
    expect(readdirSync(cacheFolder(own))).not.toContain(first);
  });

  it("stay within a few MB with several Nodes in use: another Node's caches go, the least lately used first, while all are over 6 MB", async () => {
    const dir = installed();
    const own = installs();
    // Two other Nodes, used an hour and a minute ago, 3 MB each: with this Node's own, over the budget.
    const code = join(own, 'cache', 'code');
    const hourAgo = new Date(Date.now() - 3600_000);
    const minuteAgo = new Date(Date.now() - 60_000);
    for (const [name, when] of [['v21.0.0-x64', hourAgo], ['v23.0.0-x64', minuteAgo]] as const) {
      mkdirSync(join(code, name), { recursive: true });
      for (const part of ['a', 'b', 'c']) {
        const file = join(code, name, `main.cjs-0000000000000000-${part}.cache`);
        writeFileSync(file, Buffer.alloc(1024 * 1024));
        utimesSync(file, when, when);
      }
      utimesSync(join(code, name), when, when);
    }
    expect((await tally(dir, ['balance', '--json'], { state: own })).code).toBe(0);
    expect(readdirSync(code).sort()).toEqual([`${nodeVersion}-${process.arch}`, 'v23.0.0-x64'].sort());
    const size = (folder: string) => readdirSync(folder).reduce((sum, name) => sum + statSync(join(folder, name)).size, 0);
    expect(readdirSync(code).reduce((sum, name) => sum + size(join(code, name)), 0)).toBeLessThanOrEqual(6 * 1024 * 1024);
    // Within the budget, nothing more goes: the next cache written leaves the other Node's folder.
    expect((await tally(dir, ['status', '--json'], { state: own })).code).toBe(0);
    expect(readdirSync(code)).toContain('v23.0.0-x64');
  });

  it('never makes a folder through a link in place of tally\'s cache folders', async () => {
    const dir = installed();
    const own = installs();
    const elsewhere = installs();
    symlinkSync(elsewhere, join(own, 'cache'));
    expect((await tally(dir, ['balance', '--json'], { state: own })).code).toBe(0);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('cost only time where the cache folder cannot be written or is not a folder', async () => {
    const dir = installed();
    const own = installs();
    mkdirSync(join(own, 'cache'), { recursive: true });
    writeFileSync(join(own, 'cache', 'code'), 'not a folder');
    const plain = await tally(dir, ['balance', '--json'], { state: own });
    expect([plain.code, plain.stderr]).toEqual([0, '']);
    const readOnly = installs();
    mkdirSync(join(readOnly, 'cache'), { recursive: true });
    chmodSync(join(readOnly, 'cache'), 0o500);
    try {
      const result = await tally(dir, ['balance', '--json'], { state: readOnly });
      expect([result.code, result.stderr]).toEqual([0, '']);
    } finally {
      chmodSync(join(readOnly, 'cache'), 0o700);
    }
  });
});

describe('the bundles as the build writes them', () => {
  it("come in the launcher's wrapper, compiled as read, their source map moved down with them; one without it (an older build's) runs alike", async () => {
    const { WRAPPER } = createRequire(import.meta.url)('../../bin/run.cjs') as { WRAPPER: [string, string] };
    const text = readFileSync(join(root, 'dist', 'main.cjs'), 'latin1');
    expect(text.startsWith(`${WRAPPER[0]}\n`)).toBe(true);
    expect(text.endsWith(WRAPPER[1])).toBe(true);
    for (const name of ['command-balance.cjs', 'fast-guard.cjs', 'fast-statusline.cjs']) expect(readFileSync(join(root, 'dist', name), 'latin1').startsWith(WRAPPER[0]), name).toBe(true);
    // fast.cjs is required as it is (a few kB), its parts compiled by the launcher.
    expect(readFileSync(join(root, 'dist', 'fast.cjs'), 'latin1').startsWith(WRAPPER[0])).toBe(false);
    // A position in the bundle maps to the line of the source it came from.
    const at = text.indexOf('async function runCli(');
    const line = text.slice(0, at).split('\n').length - 1;
    const column = at - (text.lastIndexOf('\n', at) + 1);
    const entry = new SourceMap(JSON.parse(readFileSync(join(root, 'dist', 'main.cjs.map'), 'utf8'))).findEntry(line, column) as { originalSource?: string; originalLine?: number };
    expect(entry.originalSource).toMatch(/src\/cli\/program\.ts$/);
    expect(entry.originalLine).toBe(readFileSync(join(root, 'src', 'cli', 'program.ts'), 'utf8').split('\n').findIndex((l) => l.startsWith('export async function runCli(')));
    // Unwrapped, as an older build wrote it: the launcher wraps it, and it answers.
    const dir = installed();
    const bundle = join(dir, 'dist', 'command-balance.cjs');
    writeFileSync(bundle, readFileSync(bundle, 'latin1').slice(WRAPPER[0].length + 1, -WRAPPER[1].length), 'latin1');
    const own = installs();
    for (let run = 0; run < 2; run++) {
      const result = await tally(dir, ['balance', '--json'], { state: own });
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ currency: 'CNY' });
    }
    expect(readdirSync(cacheFolder(own))).toEqual([expect.stringMatching(/^command-balance\.cjs-.*-balance\.cache$/)]);
  });
});

describe("the everyday commands' own bundles", () => {
  it('print exactly what the whole program prints, for each of them', async () => {
    const dir = installed();
    const whole = wholeProgramOnly();
    const routes = JSON.parse(readFileSync(join(root, 'dist', 'commands.json'), 'utf8')) as { commands: string[] };
    expect(routes.commands.sort()).toEqual(['balance', 'check', 'forecast', 'logs', 'models', 'pricing', 'status', 'usage']);
    const lines: Record<string, string[]> = { check: ['check', '--min-balance', '1', '--json'], logs: ['logs', '--json'] };
    for (const name of routes.commands) {
      const args = lines[name] ?? [name, '--json'];
      const ownState = installs();
      const run = (install: string) =>
        runProcess(NODE, ['--require', FIXED_CLOCK, join(install, 'bin', 'tally.js'), ...args], { env: { PATH: process.env.PATH, HOME: state.path, TALLY_CONFIG_DIR: install === dir ? ownState : installs(), NO_COLOR: '1', TALLY_TEST_NOW: String(Date.UTC(2026, 10, 20, 9)), ...gateway() }, timeoutMs: 20_000 });
      // The gateway's answers as a second asking gets them (its cache says HIT): the same for both.
      await run(whole);
      const own = await run(dir);
      const program = await run(whole);
      expect([own.code, own.stdout, own.stderr], name).toEqual([program.code, program.stdout, program.stderr]);
      // And it ran in its own bundle: its code cache is named by it.
      expect(readdirSync(join(ownState, 'cache', 'code', `${nodeVersion}-${process.arch}`)), name).toEqual([expect.stringMatching(new RegExp(`^command-${name}\\.cjs-.*-${name}\\.cache$`))]);
      expect(own.stdout.length, name).toBeGreaterThan(10);
    }
  }, 120_000);
});

describe('a bundle commands share', () => {
  it("runs their lines, printing exactly what the whole program prints, with one code cache that takes in each kind of line", async () => {
    const dir = installed();
    const whole = wholeProgramOnly();
    const routes = JSON.parse(readFileSync(join(root, 'dist', 'commands.json'), 'utf8')) as { shared: Record<string, string[]> };
    expect(Object.keys(routes.shared)).toEqual(['local']);
    // The whole program cut out: a line that needed it would fail there.
    rmSync(join(dir, 'dist', 'main.cjs'));
    const lines: Record<string, string[][]> = {
      // No command word: the program's help, every command described from the registry, none loaded.
      none: [[], ['--help'], ['--json', '-h'], ['--bogus']],
      budget: [['budget', 'set', 'monthly', '--amount', '500', '--period', 'month'], ['budget', 'list'], ['budget', '--json']],
      notify: [['notify', 'list'], ['notify', 'rm', 'nobody']],
      group: [['group', 'list']],
      mark: [['mark', '--json']],
      config: [['config', 'list'], ['config', 'get', 'utc_offset'], ['config', '--help']],
      schema: [['schema', 'usage']],
      auth: [['auth', 'status']],
      login: [['login', '--help']],
      logout: [['logout', '--profile', 'nobody']],
      version: [['version']],
      completion: [['completion', 'bash'], ['completion', 'zsh'], ['completion', 'fish']],
    };
    expect(Object.keys(lines).sort()).toEqual([...routes.shared.local!].sort());
    const ownState = installs();
    const wholeState = installs();
    for (const args of Object.values(lines).flat()) {
      const run = (install: string, stateDir: string) =>
        runProcess(NODE, ['--require', FIXED_CLOCK, join(install, 'bin', 'tally.js'), ...args], { env: { PATH: process.env.PATH, HOME: state.path, TALLY_CONFIG_DIR: stateDir, NO_COLOR: '1', TALLY_TEST_NOW: String(Date.UTC(2026, 10, 20, 9)), ...gateway() }, timeoutMs: 20_000 });
      const program = await run(whole, wholeState);
      const own = await run(dir, ownState);
      expect([own.code, own.stdout, own.stderr.replace(/\d+(\.\d+)? ms/g, '')], args.join(' ')).toEqual([program.code, program.stdout, program.stderr.replace(/\d+(\.\d+)? ms/g, '')]);
    }
    const caches = readdirSync(cacheFolder(ownState));
    expect(caches).toEqual([expect.stringMatching(/^command-local\.cjs-.*-local\.cache$/)]);
    const kinds = readFileSync(join(cacheFolder(ownState), caches[0]!)).subarray(0, 200).toString('latin1').split('\n')[0]!.trim().split(' ').slice(1);
    // Each kind of line that ended well (an unknown option, notify rm and logout of nobody did not), help lines too.
    expect(kinds).toEqual(['none', 'none:help', 'budget', 'notify', 'group', 'mark', 'config', 'config:help', 'schema', 'auth', 'login:help', 'version', 'completion']);
  }, 120_000);
});

describe('help lines', () => {
  it("give a command's own help from its own bundle, exactly as the whole program gives it; a help flag before the command word gives the program's", async () => {
    const dir = installed();
    const whole = wholeProgramOnly();
    // The whole program cut out of `dir`: a line that needed it would fail there.
    const cut = installed();
    rmSync(join(cut, 'dist', 'main.cjs'));
    const routes = JSON.parse(readFileSync(join(root, 'dist', 'commands.json'), 'utf8')) as { commands: string[] };
    for (const name of routes.commands) {
      for (const args of [[name, '--help'], ['--json', name, '-h'], [name, '--since', '7d', '--help']]) {
        const program = await tally(whole, args);
        const own = await tally(cut, args);
        expect([own.code, own.stdout, own.stderr], args.join(' ')).toEqual([program.code, program.stdout, program.stderr]);
        expect(own.stdout, args.join(' ')).toMatch(new RegExp(`^Usage: tally ${name} \\[options\\]`));
        expect(own.stdout, args.join(' ')).toContain('--timeout <seconds>');
      }
    }
    // Before the command word: the program's help, which lists every command (the whole program's).
    const before = await tally(dir, ['--help', 'balance']);
    expect(before.stdout).toMatch(/^Usage: tally \[options\] \[command\]/);
    expect(before.stdout).toMatch(/^ {2}report /m);
    expect((await tally(cut, ['--help', 'balance'])).code).toBe(1);
    // A help flag past `--` is a word, not a help line: the command runs (in its own bundle).
    expect((await tally(cut, ['logs', '--json', '--', '--help'])).stderr).not.toMatch(/damaged/);
  }, 120_000);

  it("neither make nor change a command bundle's cache (its runs' code only); the whole program's cache names each kind of line it runs, and takes in what one compiled where it is much", async () => {
    const dir = installed();
    const own = installs();
    const files = () => (existsSync(cacheFolder(own)) ? readdirSync(cacheFolder(own)).sort() : []);
    // A help line first: no cache of balance's bundle is made from it.
    expect((await tally(dir, ['balance', '--help'], { state: own })).code).toBe(0);
    expect(files()).toEqual([]);
    expect((await tally(dir, ['balance', '--json'], { state: own })).code).toBe(0);
    const [balance] = files();
    expect(balance).toMatch(/^command-balance\.cjs-.*-balance\.cache$/);
    const stamp = (name: string) => `${statSync(join(cacheFolder(own), name)).ino} ${statSync(join(cacheFolder(own), name)).mtimeMs}`;
    const head = (name: string) => readFileSync(join(cacheFolder(own), name)).subarray(0, 200).toString('latin1').split('\n')[0]!;
    const balanceMade = stamp(balance!);
    expect(head(balance!).trim()).toBe('tally-cache balance');
    expect((await tally(dir, ['balance', '--help'], { state: own })).code).toBe(0);
    expect(stamp(balance!)).toBe(balanceMade);
    // The whole program: made by its first line; each new kind of line named once it ends well,
    // and what it compiled taken in where that is much (a report after the program's help), not
    // where it is little (metrics after the report: V8's data as it was).
    expect((await tally(dir, ['--help', 'balance'], { state: own })).code).toBe(0);
    const main = files().find((f) => f.startsWith('main.cjs-'))!;
    const data = () => {
      const bytes = readFileSync(join(cacheFolder(own), main));
      return bytes.subarray(bytes.indexOf(10) + 1);
    };
    expect(head(main).trim()).toBe('tally-cache balance:help');
    const first = data();
    expect((await tally(dir, ['report', '--json'], { state: own })).code).toBe(0);
    expect(head(main).trim()).toBe('tally-cache balance:help report');
    const reported = data();
    expect(reported.length).toBeGreaterThan(first.length + 64 * 1024);
    expect((await tally(dir, ['metrics'], { state: own })).code).toBe(0);
    expect(head(main).trim()).toBe('tally-cache balance:help report metrics');
    expect(data().equals(reported), "what metrics adds is little: the report's data as it was").toBe(true);
    // The head keeps V8's data aligned: its length is a multiple of 16.
    expect((head(main).length + 1) % 16).toBe(0);
    const taken = stamp(main);
    expect((await tally(dir, ['metrics'], { state: own })).code).toBe(0);
    expect((await tally(dir, ['--help', 'balance'], { state: own })).code).toBe(0);
    expect(stamp(main), 'a kind it names is not taken in again').toBe(taken);
    // A failed line takes nothing in.
    expect((await tally(dir, ['whatif', '--swap', 'nothing'], { state: own })).code).not.toBe(0);
    expect(stamp(main)).toBe(taken);
    // Each run reads it as V8 made it: none rejected.
    const watched = await tally(dir, ['report', '--json'], { state: own, nodeArgs: ['-r', join(root, 'test', 'support', 'cache-watch.cjs')] });
    expect(/^cache-watch (.*)$/m.exec(watched.stderr)?.[1]).toBe(JSON.stringify({ rejected: [false] }));
    expect(files()).toHaveLength(2);
  }, 60_000);

  it("read a cache without the head (an older tally's) as V8's data: a command's bundle runs from it as it is, the whole program's takes it over", async () => {
    const dir = installed();
    const own = installs();
    expect((await tally(dir, ['balance', '--json'], { state: own })).code).toBe(0);
    expect((await tally(dir, ['metrics'], { state: own })).code).toBe(0);
    const strip = (name: string) => {
      const file = join(cacheFolder(own), name);
      const bytes = readFileSync(file);
      writeFileSync(file, bytes.subarray(bytes.indexOf(10) + 1));
      return file;
    };
    const names = readdirSync(cacheFolder(own));
    const balance = strip(names.find((f) => f.startsWith('command-balance'))!);
    const main = strip(names.find((f) => f.startsWith('main.cjs-'))!);
    const balanceBytes = readFileSync(balance);
    const run = await tally(dir, ['balance', '--json'], { state: own, nodeArgs: ['-r', join(root, 'test', 'support', 'cache-watch.cjs')] });
    expect([run.code, /^cache-watch (.*)$/m.exec(run.stderr)?.[1]]).toEqual([0, JSON.stringify({ rejected: [false] })]);
    expect(readFileSync(balance).equals(balanceBytes), "a command bundle's cache without the head is used, not made again").toBe(true);
    expect((await tally(dir, ['metrics'], { state: own })).code).toBe(0);
    expect(readFileSync(main).subarray(0, 21).toString('latin1')).toBe('tally-cache metrics  ');
  }, 60_000);
});

describe('the lines a command bundle leaves to the whole program', () => {
  it('runs --all-profiles and --profiles there (the loop over profiles is not in a command\'s bundle), and --watch', async () => {
    const ownState = installs();
    const run = (args: string[], input?: string) => runProcess(NODE, [join(root, 'bin', 'tally.js'), ...args], { env: { PATH: process.env.PATH, HOME: state.path, TALLY_CONFIG_DIR: ownState, NO_COLOR: '1' }, input, timeoutMs: 20_000 });
    expect((await run(['--profile', 'team', 'login', '--base-url', sandbox.baseUrl, '--with-token', '--no-verify'], sandbox.demoKey)).code).toBe(0);
    rmSync(join(ownState, 'cache', 'code'), { recursive: true, force: true });
    for (const args of [['balance', '--all-profiles', '--json'], ['usage', '--profiles=team', '--json']]) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(0);
      expect(JSON.parse(result.stdout).profiles.map((p: { profile: string }) => p.profile), args.join(' ')).toEqual(['team']);
    }
    expect(readdirSync(cacheFolder(ownState))).toEqual([expect.stringMatching(/^main\.cjs-.*-main\.cache$/)]);
    // --watch's own rule, from the whole program (a terminal's redraw is test/e2e/terminal.test.ts's).
    expect((await run(['--profile', 'team', 'usage', '--watch', '10', '--csv'])).stderr).toMatch(/--watch shows a table or JSON documents/);
  });
});

describe('a damaged install', () => {
  const damagedProgram = /^tally: cannot start: the installed program is damaged \(.*\); reinstall tally \(npm install -g llm-tally, or the release binary\)\n$/;

  it.each([
    ['cut in half', (file: string) => writeFileSync(file, readFileSync(file).subarray(0, Math.floor(readFileSync(file).length / 2)))],
    ['emptied', (file: string) => writeFileSync(file, '')],
    ['removed', (file: string) => rmSync(file)],
    ['a FIFO', (file: string) => (rmSync(file), execFileSync('mkfifo', [file]))],
  ])('with its program %s says so in one line (the stack only with --debug), and never hangs', async (_what, damage) => {
    const dir = installed();
    // The command's own bundle damaged alone: the whole program runs the line.
    damage(join(dir, 'dist', 'command-balance.cjs'));
    expect((await tally(dir, ['balance', '--json'])).code).toBe(0);
    damage(join(dir, 'dist', 'main.cjs'));
    const result = await tally(dir, ['balance']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(damagedProgram);
    const debug = await tally(dir, ['balance', '--debug']);
    expect(debug.code).toBe(1);
    expect(debug.stderr.split('\n').length).toBeGreaterThan(2);
  });

  it("starts from dist/launch.cjs, the build's one module of bin/run.cjs and bin/load-bundle.cjs; from bin/ where it is missing, damaged or a FIFO", async () => {
    const launch = readFileSync(join(root, 'dist', 'launch.cjs'), 'utf8');
    expect(launch).toContain(readFileSync(join(root, 'bin', 'run.cjs'), 'utf8'));
    expect(launch).toContain(readFileSync(join(root, 'bin', 'load-bundle.cjs'), 'utf8').replace("require('./run.cjs')", '__run'));
    const own = installs();
    const expected = await tally(installed(), ['--timeout', '9', 'balance', '--json'], { state: own });
    expect(expected.code).toBe(0);
    for (const damage of [(file: string) => rmSync(file), (file: string) => writeFileSync(file, 'throw new Error("cut");'), (file: string) => (rmSync(file), execFileSync('mkfifo', [file]))]) {
      const dir = installed();
      damage(join(dir, 'dist', 'launch.cjs'));
      for (const args of [['--timeout', '9', 'balance', '--json'], ['--version']]) {
        const run = await tally(dir, args, { state: own });
        expect([run.code, run.stderr], args.join(' ')).toEqual([0, '']);
        if (args[2] === 'balance') expect(run.stdout).toBe(expected.stdout);
      }
    }
  });

  it('runs as it should when the files beside the program are not what the build wrote: the option list {} or a FIFO, the fast answers a FIFO, a cache a FIFO', async () => {
    const dir = installed();
    const own = installs();
    const expected = (await tally(dir, ['--timeout', '9', 'balance', '--json'], { state: own })).stdout;
    writeFileSync(join(dir, 'dist', 'commands.json'), '{}');
    expect((await tally(dir, ['--timeout', '9', 'balance', '--json'], { state: own })).stdout).toBe(expected);
    rmSync(join(dir, 'dist', 'commands.json'));
    execFileSync('mkfifo', [join(dir, 'dist', 'commands.json')]);
    rmSync(join(dir, 'dist', 'fast.cjs'));
    execFileSync('mkfifo', [join(dir, 'dist', 'fast.cjs')]);
    const cache = readdirSync(cacheFolder(own)).find((f) => f.endsWith('.cache'))!;
    rmSync(join(cacheFolder(own), cache));
    execFileSync('mkfifo', [join(cacheFolder(own), cache)]);
    const version = await tally(dir, ['--version'], { state: own });
    expect([version.code, version.stdout, version.stderr]).toEqual([0, `${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}\n`, '']);
    const again = await tally(dir, ['--timeout', '9', 'balance', '--json'], { state: own });
    expect([again.code, again.stderr]).toEqual([0, '']);
  });

  it('says so when a file it ships is missing or a FIFO (a schema), and completes from the commands when the saved completion table is a FIFO', async () => {
    const dir = installed();
    rmSync(join(dir, 'schemas', 'usage.schema.json'));
    const missing = await tally(dir, ['schema', 'usage']);
    expect([missing.code, missing.stdout, missing.stderr]).toEqual([1, '', 'tally: the installed program is damaged (schemas/usage.schema.json is missing or not a file tally wrote); reinstall tally (npm install -g llm-tally, or the release binary)\n']);
    execFileSync('mkfifo', [join(dir, 'schemas', 'usage.schema.json')]);
    const fifo = await tally(dir, ['schema', 'usage']);
    expect([fifo.code, fifo.stderr]).toEqual([1, 'tally: the installed program is damaged (schemas/usage.schema.json is missing or not a file tally wrote); reinstall tally (npm install -g llm-tally, or the release binary)\n']);
    const expected = (await tally(installed(), ['complete', '--', 'bal'])).stdout;
    expect(expected).toMatch(/^balance/m);
    rmSync(join(dir, 'dist', 'completion.json'));
    execFileSync('mkfifo', [join(dir, 'dist', 'completion.json')]);
    const completed = await tally(dir, ['complete', '--', 'bal']);
    expect([completed.code, completed.stdout, completed.stderr]).toEqual([0, expected, '']);
  });
});
