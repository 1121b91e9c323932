// Bundles src/ into one CommonJS file, dist/main.cjs. Measured on Node 20: the ESM loader
// costs more start-up than everything tally does for a request, and a single CommonJS bundle
// whose lazily imported modules are wrapped (not run) until first use loads fastest.
// The heavy dependencies that few commands need (undici, conf, jq-wasm) stay in
// node_modules and are loaded with import() only when those commands run.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { common, lazyChildProcess } from './bundle-options.mjs';

rmSync('dist', { recursive: true, force: true });

await build({ ...common, entryPoints: ['src/main.ts'], outfile: 'dist/main.cjs', plugins: [lazyChildProcess] });
// esbuild escapes what is not ASCII in strings, not in regular expressions. One such character
// makes V8 hold the whole bundle as two-byte text, slower to read and to compile lazily.
const nonAscii = /[^\x00-\x7f]/.exec(readFileSync('dist/main.cjs', 'latin1'));
if (nonAscii) throw new Error(`dist/main.cjs has a character outside ASCII near "${readFileSync('dist/main.cjs', 'latin1').slice(nonAscii.index - 40, nonAscii.index + 10)}": write it as \\u escape in the source`);
// `--version`, a cached statusline and completion, answered without the full program (see
// src/fast.ts): a tiny dist/fast.cjs, which requires dist/fast-statusline.cjs or
// dist/fast-complete.cjs only for the answer it gives.
const FAST_PARTS = { './statusline/fast.js': 'fast-statusline', './statusline/fast-guard.js': 'fast-guard', './completion/complete.js': 'fast-complete' };
const fastParts = {
  name: 'fast-parts',
  setup(build) {
    build.onResolve({ filter: /^\.\/(statusline\/fast|statusline\/fast-guard|completion\/complete)\.js$/ }, (args) =>
      args.importer.endsWith('fast.ts') ? { path: `./${FAST_PARTS[args.path]}.cjs`, external: true } : undefined,
    );
  },
};
const fastOutputs = [
  ['src/fast.ts', 'dist/fast.cjs', [fastParts]],
  ['src/statusline/fast.ts', 'dist/fast-statusline.cjs', []],
  ['src/statusline/fast-guard.ts', 'dist/fast-guard.cjs', []],
  ['src/completion/complete.ts', 'dist/fast-complete.cjs', []],
];
for (const [entry, outfile, plugins] of fastOutputs) {
  // import() of the parts becomes require(): Node's ESM loader would cost more than the answer.
  const { metafile } = await build({ ...common, entryPoints: [entry], outfile, plugins, metafile: true, supported: { 'dynamic-import': false } });
  const bytes = metafile.outputs[outfile]?.bytes ?? 0;
  // These must stay small: a dependency on the command line here would undo them.
  // The guard's decides in exact decimals (decimal.js) with the guard's own rule and the budget checks: twice the others' room.
  const limit = outfile.endsWith('fast-guard.cjs') ? 96 * 1024 : 48 * 1024;
  if (bytes > limit) throw new Error(`${outfile} is ${bytes} bytes: something heavy is imported by ${entry}`);
}

// No V8 code cache is built here: one is good only for the Node that made it, so the launcher
// makes one on the first run of each Node version (bin/load-bundle.cjs), in the user's cache folder.
const launcher = createRequire(import.meta.url)('../bin/load-bundle.cjs');

// What shell completion knows of every command, as data: a Tab then loads no command module.
const program = launcher.load();
const spec = await program.completionSpec();
writeFileSync('dist/completion.json', JSON.stringify(spec));
// The global options that take a value: the launcher skips their values to find the command word
// (as the command line's parser does), which names the code cache of that command's runs.
writeFileSync('dist/commands.json', JSON.stringify({ valueFlags: spec.options.filter((o) => o.takesValue).flatMap((o) => [o.name.startsWith('-') ? o.name : `--${o.name}`, ...(o.alias ? [o.alias.startsWith('-') ? o.alias : `-${o.alias}`] : [])]) }));
