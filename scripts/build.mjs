// Bundles src/ into one CommonJS file, dist/main.cjs. Measured on Node 20: the ESM loader
// costs more start-up than everything tally does for a request, and a single CommonJS bundle
// whose lazily imported modules are wrapped (not run) until first use loads fastest.
// The heavy dependencies that few commands need (undici, conf, jq-wasm) stay in
// node_modules and are loaded with import() only when those commands run.
import { spawn } from 'node:child_process';
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

rmSync('dist', { recursive: true, force: true });

// commander requires node:child_process when it loads (with net, dgram and streams behind it,
// ~2 ms of every run), yet uses it only to spawn executable subcommands, which tally has
// none of. Its copy is a getter that loads the module on first use.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(build) {
    build.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'child_process', namespace: 'lazy' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents: "module.exports = { get spawn() { return require('node:child_process').spawn; } };",
      loader: 'js',
    }));
  },
};

const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'none',
  // import.meta.url is read only when running from source (external.ts); the bundle has the launcher's resolver.
  define: { __TALLY_VERSION__: JSON.stringify(version), 'import.meta.url': 'undefined' },
  external: ['undici', 'conf', 'jq-wasm', 'selfsigned', '@modelcontextprotocol/server', '@modelcontextprotocol/server/stdio'],
  logLevel: 'warning',
};
await build({ ...common, entryPoints: ['src/main.ts'], outfile: 'dist/main.cjs', plugins: [lazyChildProcess] });
// esbuild escapes what is not ASCII in strings, not in regular expressions. One such character
// makes V8 hold the whole bundle as two-byte text, slower to read and to compile lazily.
const nonAscii = /[^\x00-\x7f]/.exec(readFileSync('dist/main.cjs', 'latin1'));
if (nonAscii) throw new Error(`dist/main.cjs has a character outside ASCII near "${readFileSync('dist/main.cjs', 'latin1').slice(nonAscii.index - 40, nonAscii.index + 10)}": write it as \\u escape in the source`);
// `--version`, a cached statusline and completion, answered without the full program (see
// src/fast.ts): a tiny dist/fast.cjs, which requires dist/fast-statusline.cjs or
// dist/fast-complete.cjs only for the answer it gives.
const FAST_PARTS = { './statusline/fast.js': 'fast-statusline', './completion/complete.js': 'fast-complete' };
const fastParts = {
  name: 'fast-parts',
  setup(build) {
    build.onResolve({ filter: /^\.\/(statusline\/fast|completion\/complete)\.js$/ }, (args) =>
      args.importer.endsWith('fast.ts') ? { path: `./${FAST_PARTS[args.path]}.cjs`, external: true } : undefined,
    );
  },
};
const fastOutputs = [
  ['src/fast.ts', 'dist/fast.cjs', [fastParts]],
  ['src/statusline/fast.ts', 'dist/fast-statusline.cjs', []],
  ['src/completion/complete.ts', 'dist/fast-complete.cjs', []],
];
for (const [entry, outfile, plugins] of fastOutputs) {
  // import() of the parts becomes require(): Node's ESM loader would cost more than the answer.
  const { metafile } = await build({ ...common, entryPoints: [entry], outfile, plugins, metafile: true, supported: { 'dynamic-import': false } });
  const bytes = metafile.outputs[outfile]?.bytes ?? 0;
  // These must stay small: a dependency on the command line here would undo them.
  if (bytes > 48 * 1024) throw new Error(`${outfile} is ${bytes} bytes: something heavy is imported by ${entry}`);
}

// V8's code cache for the bundle, read by bin/load-bundle.cjs (see there), with the code of the
// everyday commands in it: they run once here against the sandbox (measured with npm run bench:
// 5-15 ms less per run than a cache of the top level alone; a cache of every command is slower
// again, as V8 reads all of it on every run).
const launcher = createRequire(import.meta.url)('../bin/load-bundle.cjs');
await launcher.writeCache(exerciseEverydayCommands);

// What shell completion knows of every command, as data: a Tab then loads no command module.
const spec = await launcher.load().completionSpec();
writeFileSync('dist/completion.json', JSON.stringify(spec));

/**
 * Runs the everyday commands in this process against a sandbox in a child process (so that the
 * sandbox's own code stays out of the cache). Nothing they print is shown. If the sandbox cannot
 * start here, the cache holds the top level only and the build says so.
 */
async function exerciseEverydayCommands(bundle) {
  const dir = mkdtempSync(join(tmpdir(), 'tally-build-'));
  const sandbox = spawn(process.execPath, ['bin/tally.js', 'sandbox', '--json', '--port', '0', '--account-limit', '1000000'], {
    env: { ...process.env, TALLY_CONFIG_DIR: join(dir, 'sandbox') },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const saved = { env: { ...process.env }, out: process.stdout.write, err: process.stderr.write, exitCode: process.exitCode };
  try {
    const gateway = await new Promise((resolve, reject) => {
      let text = '';
      const timer = setTimeout(() => reject(new Error('the sandbox did not start within 20 s')), 20_000);
      sandbox.stdout.on('data', (chunk) => {
        text += chunk;
        if (text.includes('}')) {
          clearTimeout(timer);
          resolve(JSON.parse(text));
        }
      });
      sandbox.on('error', reject);
      sandbox.on('exit', () => reject(new Error('the sandbox exited')));
    });
    for (const name of Object.keys(process.env)) if (name.startsWith('TALLY_')) delete process.env[name];
    Object.assign(process.env, { TALLY_CONFIG_DIR: join(dir, 'state'), TALLY_BASE_URL: gateway.base_url, TALLY_API_KEY: gateway.api_key, NO_COLOR: '1' });
    process.stdout.write = process.stderr.write = () => true;
    const everyday = [['balance', '--json'], ['usage'], ['usage', '--json'], ['status'], ['pricing', '--model', 'gpt*'], ['logs', '--json']];
    for (const argv of everyday) await bundle.main(argv);
  } catch (error) {
    console.warn(`build: the code cache holds the top level only (${error.message})`);
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    for (const name of Object.keys(process.env)) if (!(name in saved.env)) delete process.env[name];
    Object.assign(process.env, saved.env);
    process.exitCode = saved.exitCode;
    sandbox.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
