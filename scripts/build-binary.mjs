// npm run build:binary: tally as one executable file for this platform (a Node.js single
// executable application, made with Node 24 LTS), which answers exactly as `node bin/tally.js`.
//
// The binary's main script is src/sea/entry.cjs (bin/load-bundle.cjs's run, bundled in); the
// whole program and the fast answers are its assets, bundled with every dependency
// (src/sea/external.ts in the place of src/external.ts), beside the schemas, the saved completion
// spec and jq's CommonJS build (its WebAssembly inline). Each bundle's V8 code cache is made by the
// binary itself: a first binary without caches runs each everyday command against its own
// sandbox (in a process of its own), `--version` and an agent's session, and writes what they
// compiled; the final binary carries those caches, and is checked to accept them. Nothing is
// written beside the binary when it runs.
//
// Node: TALLY_SEA_NODE, else the pinned Node 24 of scripts/nodes (linux-x64, `npm ci --prefix
// scripts/nodes`), else the Node running this script when it is 24 or later (the release runners).
// The path written is the last line printed.
import { build } from 'esbuild';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { common, EVERYDAY, EXTERNAL, FAST_PARTS, SHARED, fastParts, lazyChildProcess, lazyDecimalConstants, leanCommandBundle, onlyTheseCommands, wrapBundle } from './bundle-options.mjs';

const root = resolve(new URL('..', import.meta.url).pathname);
const out = join(root, 'build', 'sea');
const SENTINEL = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** The Node the binary is made of. */
function seaNode() {
  if (process.env.TALLY_SEA_NODE) return resolve(process.env.TALLY_SEA_NODE);
  const pinned = join(root, 'scripts/nodes/node_modules/node24/bin/node');
  if (process.platform === 'linux' && process.arch === 'x64' && existsSync(pinned)) return pinned;
  if (Number(process.versions.node.split('.')[0]) >= 24) return process.execPath;
  throw new Error('build:binary needs Node 24: run `npm ci --prefix scripts/nodes` (linux-x64), run it with Node 24, or set TALLY_SEA_NODE');
}

// The single executable takes everything inside: src/external.ts gives way to src/sea/external.ts.
const seaExternal = {
  name: 'sea-external',
  setup(b) {
    b.onResolve({ filter: /[\\/]external\.js$/ }, (args) =>
      args.importer.startsWith(join(root, 'src')) && resolve(args.resolveDir, args.path) === join(root, 'src/external.js') ? { path: join(root, 'src/sea/external.ts') } : undefined,
    );
  },
};

// Code compiled through node:vm has no import() loader: an import() esbuild cannot bundle (a name
// known only at run time) fails the build instead of the binary.
const bundled = { ...common, external: [], sourcemap: false, plugins: [seaExternal, lazyChildProcess, lazyDecimalConstants], logOverride: { 'unsupported-dynamic-import': 'error', 'unsupported-require-call': 'error' } };
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'caches'), { recursive: true });
const bundles = [
  // The whole program.
  ['src/cli/main.ts', 'main.cjs'],
  // `--version`, a cached statusline, the guard, completion: fast.cjs and its parts, as the package has them (each part its own asset, loaded for its answer).
  ['src/cli/fast.ts', 'fast.cjs', { plugins: [fastParts], supported: { 'dynamic-import': false } }],
  ...FAST_PARTS.map(([entry, part]) => [entry, `${part}.cjs`, { plugins: [seaExternal, lazyDecimalConstants], supported: { 'dynamic-import': false } }]),
  // The binary's main script.
  ['src/sea/entry.cjs', 'entry.cjs'],
  // The everyday commands' own bundles, and the shared ones, as the package has them.
  ...[...EVERYDAY.map((command) => [command, [command]]), ...Object.entries(SHARED)].map(([name, words]) => ['src/cli/main.ts', `command-${name}.cjs`, { plugins: [seaExternal, lazyChildProcess, lazyDecimalConstants, onlyTheseCommands(words), leanCommandBundle(words)] }]),
];
for (const [entry, file, extra] of bundles) {
  await build({ ...bundled, ...extra, entryPoints: [join(root, entry)], outfile: join(out, file) });
  // The assets the entry compiles come in its wrapper (the entry itself is the binary's main script).
  if (file !== 'entry.cjs') wrapBundle(join(out, file));
}
// The dependencies the package leaves in node_modules (but jq, which a worker thread loads): one
// bundle per package, exporting its modules by specifier (src/sea/external.ts loads them).
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
const dependencies = {};
for (const specifier of EXTERNAL.filter((s) => s !== 'jq-wasm')) (dependencies[packageOf(specifier)] ??= []).push(specifier);
for (const [name, specifiers] of Object.entries(dependencies)) {
  const contents = specifiers.map((specifier, i) => `import * as m${i} from ${JSON.stringify(specifier)};`).join('\n') + `\nexport default { ${specifiers.map((specifier, i) => `${JSON.stringify(specifier)}: m${i}`).join(', ')} };`;
  await build({ ...bundled, stdin: { contents, resolveDir: root, loader: 'js' }, outfile: join(out, 'deps', `${name}.cjs`), footer: { js: 'module.exports = module.exports.default;' } });
  wrapBundle(join(out, 'deps', `${name}.cjs`));
}

// What the package ships, as assets: the schemas, the completion spec the package build saved, jq.
const completionSpec = join(root, 'dist/completion.json');
if (!existsSync(completionSpec)) throw new Error('dist/completion.json is missing: run `npm run build` first (npm run build:binary does)');
const assets = { 'main.cjs': join(out, 'main.cjs'), 'fast.cjs': join(out, 'fast.cjs'), 'dist/completion.json': completionSpec, 'dist/commands.json': join(root, 'dist/commands.json') };
for (const [, part] of FAST_PARTS) assets[`${part}.cjs`] = join(out, `${part}.cjs`);
for (const name of [...EVERYDAY, ...Object.keys(SHARED)]) assets[`command-${name}.cjs`] = join(out, `command-${name}.cjs`);
for (const name of Object.keys(dependencies)) assets[`deps/${name}.cjs`] = join(out, 'deps', `${name}.cjs`);
for (const schema of readdirSync(join(root, 'schemas')).filter((f) => f.endsWith('.json'))) assets[`schemas/${schema}`] = join(root, 'schemas', schema);
// The manual's topics (tally help TOPIC).
for (const topic of readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'))) assets[`docs/${topic}`] = join(root, 'docs', topic);
assets['node_modules/jq-wasm'] = createRequire(join(root, 'package.json')).resolve('jq-wasm/inline');

const node = seaNode();
const platform = process.platform === 'win32' ? 'win' : process.platform;
const name = `tally-${platform}-${process.arch}${process.platform === 'win32' ? '.exe' : ''}`;

/** Runs a step of the build; what it says (postject's notes on every section it reads) is printed only when it fails. */
function quietly(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${[command, ...args].join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stdout}${result.stderr}`);
}

/** A binary of `node` with the blob of these assets injected. */
async function makeBinary(binary, withAssets) {
  const config = join(out, 'sea-config.json');
  const blob = join(out, 'sea.blob');
  writeFileSync(config, JSON.stringify({ main: join(out, 'entry.cjs'), output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, assets: withAssets }, null, 2));
  quietly(node, ['--experimental-sea-config', config]);
  copyFileSync(node, binary);
  chmodSync(binary, 0o755);
  if (process.platform === 'darwin') execFileSync('codesign', ['--remove-signature', binary]);
  const postject = createRequire(import.meta.url).resolve('postject/dist/cli.js');
  quietly(process.execPath, [postject, binary, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SENTINEL, ...(process.platform === 'darwin' ? ['--macho-segment-name', 'NODE_SEA'] : [])]);
  // macOS runs only signed code: an ad-hoc signature (a release may sign it with an identity after).
  if (process.platform === 'darwin') execFileSync('codesign', ['--sign', '-', binary]);
}

/**
 * The binary's own sandbox, in a process of its own (`tally sandbox --port 0`), writing no cache:
 * the everyday commands' caches are then made by runs against a gateway, as a user's are, not
 * by --demo runs that compile the in-process sandbox's server into every command's cache.
 */
function sandboxOf(binary, env) {
  const child = spawn(binary, ['sandbox', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let said = '';
    const timer = setTimeout(() => reject(new Error(`the binary's sandbox did not start: ${said}`)), 20_000);
    child.on('error', reject);
    child.stdout.on('data', (chunk) => {
      said += chunk;
      const url = /TALLY_BASE_URL=(\S+)/.exec(said)?.[1];
      const key = /TALLY_API_KEY=(\S+)/.exec(said)?.[1];
      if (url && key) {
        clearTimeout(timer);
        resolve({ url, key, stop: () => child.kill('SIGKILL') });
      }
    });
  });
}

/** Runs the binary as a user would, with the code caches it compiles written to `caches` (when it has none of its own). */
async function exercise(binary, caches) {
  const state = join(out, 'state');
  rmSync(state, { recursive: true, force: true });
  // The builder's environment (Windows needs its SystemRoot) without tally's settings or Node's options.
  const own = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TALLY_|NODE_OPTIONS$)/.test(name)));
  const env = { ...own, HOME: state, TALLY_CONFIG_DIR: state, TALLY_SEA_CACHE_OUT: caches, NO_COLOR: '1' };
  const sandbox = await sandboxOf(binary, { ...own, HOME: state, TALLY_CONFIG_DIR: join(state, 'sandbox') });
  try {
    // Each everyday command in its own bundle (its cache), against the gateway; the whole program, the fast answers.
    const gateway = { ...env, TALLY_BASE_URL: sandbox.url, TALLY_API_KEY: sandbox.key };
    for (const argv of [['status'], ...EVERYDAY.filter((c) => c !== 'status').map((c) => (c === 'check' ? ['check', '--min-balance', '1'] : [c]))]) execFileSync(binary, argv, { env: gateway, stdio: ['ignore', 'ignore', 'inherit'] });
    // The fast answers' parts: the status line and the guard from the caches those runs left (the first status line fills its own), completion at a Tab.
    const hookEvent = JSON.stringify({ session_id: 'build', transcript_path: join(state, 'none.jsonl'), cwd: state, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } });
    for (const argv of [['statusline'], ['statusline'], ['guard', '--max-daily-used', '100%']]) execFileSync(binary, argv, { env: gateway, input: hookEvent, stdio: ['pipe', 'ignore', 'inherit'] });
    execFileSync(binary, ['complete', '--', 'usage', '--b'], { env: gateway, stdio: ['ignore', 'ignore', 'inherit'] });
  } finally {
    sandbox.stop();
  }
  // The shared bundle's (its last run's code is its cache), and the whole program's.
  for (const argv of [['--version'], ['version'], ['config', 'list'], ['budget', 'list']]) execFileSync(binary, argv, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  // An agent's session: the MCP server's package too.
  const session = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'build', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_status', arguments: {} } },
  ];
  execFileSync(binary, ['mcp', '--demo'], { env, input: session.map((m) => JSON.stringify(m)).join('\n') + '\n', stdio: ['pipe', 'ignore', 'inherit'] });
  rmSync(state, { recursive: true, force: true });
}

// First pass: a binary without caches makes them.
const first = join(out, `first-${name}`);
await makeBinary(first, assets);
await exercise(first, join(out, 'caches'));
const caches = readdirSync(join(out, 'caches'));
for (const bundle of ['main.cjs', 'fast.cjs', ...FAST_PARTS.map(([, part]) => `${part}.cjs`), ...[...EVERYDAY, ...Object.keys(SHARED)].map((c) => `command-${c}.cjs`)]) if (!caches.includes(`${bundle}.cache`)) throw new Error(`the first binary wrote no code cache for ${bundle}`);
rmSync(first);

// The binary: the same assets and the caches it made.
const binary = join(out, name);
await makeBinary(binary, { ...assets, ...Object.fromEntries(caches.map((file) => [file.replaceAll('+', '/'), join(out, 'caches', file)])) });
// It accepts them: run again, it has nothing left to write.
const check = join(out, 'check');
mkdirSync(check, { recursive: true });
await exercise(binary, check);
const rejected = readdirSync(check).filter((file) => caches.includes(file));
if (rejected.length > 0) throw new Error(`the binary rejected its own code caches: ${rejected.join(', ')}`);
for (const leftover of ['check', 'caches', 'sea.blob', 'sea-config.json']) rmSync(join(out, leftover), { recursive: true, force: true });

const megabytes = (statSync(binary).size / 1024 / 1024).toFixed(1);
process.stderr.write(`tally ${execFileSync(binary, ['--version']).toString().trim()}, a single executable of Node ${execFileSync(node, ['--version']).toString().trim()} (${megabytes} MB)\n`);
console.log(binary);
