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

// One bundle per command for the commands run every day and in CI (bin/load-bundle.cjs picks it
// by the command word): the same program with the other commands' loaders left out, so a run
// reads and deserialises about half as much. Measured with farm-bench (balance --json, paired
// whole-process runs): 0.93x the whole program's time.
const EVERYDAY = {
  balance: [['balance', '--json'], ['balance']],
  usage: [['usage'], ['usage', '--json'], ['usage', '--bucket', 'hour', '--since', '2d']],
  status: [['status']],
  forecast: [['forecast'], ['forecast', '--json']],
  check: [['check', '--min-balance', '1', '--max-daily-used', '99%']],
  logs: [['logs', '--json'], ['logs']],
  models: [['models'], ['models', '--json']],
  pricing: [['pricing', '--model', 'gpt*'], ['pricing', '--json']],
};
const registry = readFileSync('src/cli/registry.ts', 'utf8');
for (const name of Object.keys(EVERYDAY)) {
  if (!registry.includes(`import('../commands/${name}.js')`)) throw new Error(`build: ${name} is not a command of src/cli/registry.ts`);
  const onlyThisCommand = {
    name: 'only-this-command',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]cli[\\/]registry\.ts$/ }, (args) => ({
        // The launcher sends only this command's lines here: another command's loader is never called.
        contents: readFileSync(args.path, 'utf8').replace(/import\('\.\.\/commands\/([\w-]+)\.js'\)/g, (whole, file) => (file === name ? whole : `Promise.reject(new Error('${file} is not in the bundle of ${name}'))`)),
        loader: 'ts',
      }));
    },
  };
  // No source map of its own: the whole program's (dist/main.cjs.map) maps the same sources, and eight more would weigh 12 MB in the package
  // (TALLY_BUILD_MAPS=1 npm run build writes them, to read a CPU profile of one command).
  await build({ ...common, sourcemap: process.env.TALLY_BUILD_MAPS ? 'linked' : false, entryPoints: ['src/main.ts'], outfile: `dist/command-${name}.cjs`, plugins: [lazyChildProcess, onlyThisCommand] });
}

// V8's code cache for each bundle, read by bin/load-bundle.cjs (see there), with the code of the
// everyday commands in it: they run once here against the sandbox (measured with npm run bench:
// 5-15 ms less per run than a cache of the top level alone; a cache of every command is slower
// again, as V8 reads all of it on every run).
const launcher = createRequire(import.meta.url)('../bin/load-bundle.cjs');
const gateway = await startBuildSandbox();
try {
  await launcher.writeCache(gateway && exercise(gateway, [['balance', '--json'], ['usage'], ['usage', '--json'], ['status'], ['pricing', '--model', 'gpt*'], ['logs', '--json']]));
  for (const [name, lines] of Object.entries(EVERYDAY)) await launcher.writeCache(gateway && exercise(gateway, lines), join(process.cwd(), `dist/command-${name}.cjs`));
} finally {
  gateway?.stop();
}

// What shell completion knows of every command, as data: a Tab then loads no command module.
const program = launcher.load();
const spec = await program.completionSpec();
writeFileSync('dist/completion.json', JSON.stringify(spec));
// Which command words have a bundle of their own, and the global options that take a value (the
// launcher skips their values to find the command word, as the command line's parser does).
writeFileSync('dist/commands.json', JSON.stringify({ commands: Object.keys(EVERYDAY), valueFlags: spec.options.filter((o) => o.takesValue).flatMap((o) => [o.name.startsWith('-') ? o.name : `--${o.name}`, ...(o.alias ? [o.alias.startsWith('-') ? o.alias : `-${o.alias}`] : [])]) }));

/**
 * A sandbox in a child process (so that its own code stays out of the caches), or undefined when
 * it cannot start here: the caches then hold the top level only, and the build says so.
 */
async function startBuildSandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'tally-build-'));
  const sandbox = spawn(process.execPath, ['bin/tally.js', 'sandbox', '--json', '--port', '0', '--account-limit', '1000000'], {
    env: { ...process.env, TALLY_CONFIG_DIR: join(dir, 'sandbox') },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const stop = () => {
    sandbox.kill();
    rmSync(dir, { recursive: true, force: true });
  };
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
    return { ...gateway, dir, stop };
  } catch (error) {
    console.warn(`build: the code caches hold the top level only (${error.message})`);
    stop();
    return undefined;
  }
}

/** Runs command lines in this process against the sandbox, printing nothing. */
function exercise(gateway, lines) {
  return async (bundle) => {
    const saved = { env: { ...process.env }, out: process.stdout.write, err: process.stderr.write, exitCode: process.exitCode };
    try {
      for (const name of Object.keys(process.env)) if (name.startsWith('TALLY_')) delete process.env[name];
      Object.assign(process.env, { TALLY_CONFIG_DIR: join(gateway.dir, 'state'), TALLY_BASE_URL: gateway.base_url, TALLY_API_KEY: gateway.api_key, NO_COLOR: '1' });
      process.stdout.write = process.stderr.write = () => true;
      for (const argv of lines) await bundle.main(argv);
    } finally {
      process.stdout.write = saved.out;
      process.stderr.write = saved.err;
      for (const name of Object.keys(process.env)) if (!(name in saved.env)) delete process.env[name];
      Object.assign(process.env, saved.env);
      process.exitCode = saved.exitCode;
    }
  };
}
