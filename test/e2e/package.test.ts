// Ready to publish and to put on the PATH, checked as a user meets it: `npm pack`, the tarball
// installed into an empty prefix, `--version`, `demo` and `balance --demo --json` run from there,
// with no warning from npm (no script of ours runs at install) and nothing built for one Node
// only in the package; publint finds nothing; the tarball stays within its size.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE, runProcess, runTally, tempDir, skipWithout } from '../helpers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The packed tarball's size budget (the catalog of code caches it once carried was 4 MB; the everyday commands' own bundles take half of it). */
const MAX_PACKED_BYTES = 2 * 1024 * 1024;
const work = tempDir();
let tarball: string;
let packed: { size: number; unpackedSize: number; files: { path: string }[] };

beforeAll(() => {
  // As a release packs it, from a copy of the built checkout (the other tests run the checkout's
  // dist/ meanwhile): prepack takes the checkout's own prepare out, postpack puts it back. (In the
  // checkout, prepack builds dist/ first; the copy has no src/ and packs what npm test built.)
  const stage = join(work.path, 'checkout');
  mkdirSync(join(stage, 'scripts'), { recursive: true });
  const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));
  for (const entry of ['package.json', ...pkg.files.filter((f: string) => !f.startsWith('!'))]) cpSync(join(root, entry), join(stage, entry), { recursive: true });
  cpSync(join(root, 'scripts/pack.mjs'), join(stage, 'scripts/pack.mjs'));
  const before = readFileSync(join(stage, 'package.json'), 'utf8');
  packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work.path], { cwd: stage, stdio: ['ignore', 'pipe', 'pipe'] }).toString())[0];
  expect(readFileSync(join(stage, 'package.json'), 'utf8')).toBe(before);
  tarball = join(work.path, readdirSync(work.path).find((f) => f.endsWith('.tgz'))!);
}, 120_000);
afterAll(() => work.remove());

describe('the package', () => {
  it('holds what runs and nothing else: no code cache, no sources, tests or maps; a bin, the Node lines it supports, a licence', () => {
    const files = packed.files.map((f) => f.path);
    for (const needed of ['bin/tally.js', 'bin/load-bundle.cjs', 'bin/run.cjs', 'dist/launch.cjs', 'dist/main.cjs', 'dist/command-balance.cjs', 'dist/command-status.cjs', 'dist/command-usage.cjs', 'dist/command-local.cjs', 'dist/fast.cjs', 'dist/commands.json', 'dist/completion.json', 'schemas/usage.schema.json', 'monitoring/alerts.yml', 'action.yml', 'README.md', 'LICENSE', 'package.json']) expect(files).toContain(needed);
    expect(files.filter((f) => /^(src|test|scripts)\/|\.cache$|\.map$|\.tgz$/.test(f))).toEqual([]);
    expect(packed.size).toBeLessThan(MAX_PACKED_BYTES);
    const pkg = JSON.parse(execFileSync('tar', ['xzf', tarball, '-O', 'package/package.json']).toString());
    expect(pkg.private).toBeUndefined();
    expect(pkg.bin).toEqual({ tally: 'bin/tally.js' });
    expect(pkg.engines.node).toBe('^20.18.1 || >=22');
    // Installing runs no script of ours: the build ran at prepack.
    expect(Object.keys(pkg.scripts).filter((s) => /install|prepare/.test(s))).toEqual([]);
    // What the bundle loads from node_modules, and nothing it carries inside itself.
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['@modelcontextprotocol/server', 'conf', 'jq-wasm', 'nodemailer', 'selfsigned', 'undici']);
  });

  it('is clean by publint', async () => {
    const result = await runProcess(process.execPath, [join(root, 'node_modules/publint/src/cli.js'), 'run', tarball, '--strict'], { cwd: root, env: process.env, timeoutMs: 60_000 });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/All good!/);
  }, 60_000);

  it('installs into an empty prefix with no warning from npm, and runs from there: --version, demo, balance --demo --json', async () => {
    const prefix = join(work.path, 'prefix');
    const installed = spawnSync('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel', 'warn', tarball], { env: process.env, encoding: 'utf8', timeout: 180_000 });
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stderr).toBe('');
    const tally = join(prefix, 'bin', 'tally');
    expect(existsSync(tally)).toBe(true);
    const state = join(work.path, 'state');
    // The installed command's `#!/usr/bin/env node` finds the Node under test first on the PATH.
    const env = { PATH: `${dirname(NODE)}:${process.env.PATH}`, HOME: work.path, TALLY_CONFIG_DIR: state, NO_COLOR: '1' };
    const version = await runProcess(tally, ['--version'], { env });
    expect(version.stdout).toBe(`${JSON.parse(readFileSync(`${root}/package.json`, 'utf8')).version}\n`);
    const demo = await runProcess(tally, ['demo'], { env, timeoutMs: 60_000 });
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toMatch(/^\$ tally status/m);
    const balance = await runProcess(tally, ['balance', '--demo', '--json'], { env });
    expect(balance.code, balance.stderr).toBe(0);
    expect(JSON.parse(balance.stdout)).toMatchObject({ currency: 'CNY' });
    // The first run on this Node made its code cache in the state folder, never in the package.
    expect(readdirSync(join(state, 'cache', 'code', `${execFileSync(NODE, ['--version']).toString().trim()}-${process.arch}`)).some((f) => /^main\.cjs-[0-9a-z]+-[0-9a-z.]+-main\.cache$/.test(f))).toBe(true);
    expect(readdirSync(join(prefix, 'lib', 'node_modules', 'llm-tally', 'dist')).filter((f) => f.endsWith('.cache'))).toEqual([]);
    // Homebrew's generate_completions_from_executable runs `tally completion SHELL` for each shell.
    for (const shell of ['bash', 'zsh', 'fish']) {
      const completion = await runProcess(tally, ['completion', shell], { env });
      expect(completion.code, completion.stderr).toBe(0);
      expect(completion.stdout).toMatch(/tally/);
    }
  }, 240_000);
});

describe('the Homebrew formula (packaging/homebrew/tally.rb)', () => {
  const hasRuby = spawnSync('ruby', ['--version']).status === 0;
  if (!hasRuby && process.env.CI) throw new Error('ruby is not installed: .ci/run installs Debian\'s ruby');
  if (!hasRuby) console.warn('package: ruby is not installed, the Homebrew formula is not parsed: `apt-get install ruby` to include it.');

  it('is written for a tarball by scripts/homebrew-formula.mjs: the registry address of its version, its SHA-256; Node from Homebrew, completions, a test', () => {
    const formula = execFileSync(process.execPath, [join(root, 'scripts/homebrew-formula.mjs'), tarball]).toString();
    const version = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')).version;
    expect(formula).toContain(`  url "https://registry.npmjs.org/llm-tally/-/llm-tally-${version}.tgz"\n`);
    expect(formula).toContain(`  sha256 "${createHash('sha256').update(readFileSync(tarball)).digest('hex')}"\n`);
    // The kept formula differs only in those two lines.
    const kept = readFileSync(join(root, 'packaging/homebrew/tally.rb'), 'utf8');
    const body = (text: string) => text.replace(/^  (url|sha256) ".*"$/gm, '');
    expect(body(formula)).toBe(body(kept));
    expect(kept).toMatch(/^  url "https:\/\/registry\.npmjs\.org\/llm-tally\/-\/llm-tally-\d+\.\d+\.\d+\.tgz"$/m);
    expect(kept).toMatch(/^  sha256 "[0-9a-f]{64}"$/m);
    for (const line of ['class Tally < Formula', 'depends_on "node"', 'system "npm", "install", *std_npm_args', 'generate_completions_from_executable(bin/"tally", "completion")', 'shell_output("#{bin}/tally --version")', 'shell_output("#{bin}/tally balance --demo --json")']) expect(kept).toContain(line);
  });

  it.skipIf(skipWithout(hasRuby))('is Ruby that parses', () => {
    const checked = spawnSync('ruby', ['-c', join(root, 'packaging/homebrew/tally.rb')], { encoding: 'utf8' });
    expect(checked.status, checked.stderr).toBe(0);
    expect(checked.stdout).toBe('Syntax OK\n');
  });

  it('refuses what is not a package of tally', () => {
    const wrong = spawnSync(process.execPath, [join(root, 'scripts/homebrew-formula.mjs')], { encoding: 'utf8' });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('usage: node scripts/homebrew-formula.mjs PACKAGE.tgz');
  });
});

describe('tally version', () => {
  it('answers as gh does, with the Node that runs it, the number as --version prints it', async () => {
    const [version, flag] = await Promise.all([runTally(['version']), runTally(['--version'])]);
    const node = execFileSync(NODE, ['-p', 'process.versions.node']).toString().trim();
    expect(version.stdout).toBe(`tally ${flag.stdout.trim()} (Node ${node}, ${process.platform}-${process.arch})\n`);
    const json = JSON.parse((await runTally(['version', '--json'])).stdout);
    expect(json).toEqual({ version: flag.stdout.trim(), node, platform: process.platform, arch: process.arch });
  });
});
