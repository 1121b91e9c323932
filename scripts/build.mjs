// Bundles src/ into one CommonJS file, dist/main.cjs. Measured on Node 20: the ESM loader
// costs more start-up than everything tally does for a request, and a single CommonJS bundle
// whose lazily imported modules are wrapped (not run) until first use loads fastest.
// The heavy dependencies that few commands need (undici, conf, env-paths, jq-wasm) stay in
// node_modules and are loaded with import() only when those commands run.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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

await build({
  entryPoints: ['src/main.ts'],
  outfile: 'dist/main.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'none',
  define: { __TALLY_VERSION__: JSON.stringify(version) },
  external: ['undici', 'conf', 'env-paths', 'jq-wasm'],
  plugins: [lazyChildProcess],
  logLevel: 'warning',
});

// V8's code cache for the bundle, read by bin/load-bundle.cjs (see there).
const launcher = createRequire(import.meta.url)('../bin/load-bundle.cjs');
launcher.writeCache();

// What shell completion knows of every command, as data: a Tab then loads no command module.
const spec = await launcher.load().completionSpec();
writeFileSync('dist/completion.json', JSON.stringify(spec));
