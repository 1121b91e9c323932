// Bundles src/ into one CommonJS file, dist/main.cjs. Measured on Node 20: the ESM loader
// costs more start-up than everything tally does for a request, and a single CommonJS bundle
// whose lazily imported modules are wrapped (not run) until first use loads fastest.
// The heavy dependencies that few commands need (undici, conf, jq-wasm) stay in
// node_modules and are loaded with import() only when those commands run.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { EVERYDAY, FAST_PARTS, SHARED, asciiOnly, common, fastParts, lazyChildProcess, lazyDecimalConstants, leanCommandBundle, onlyTheseCommands, wrapBundle } from './bundle-options.mjs';

rmSync('dist', { recursive: true, force: true });

await build({ ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/main.cjs', plugins: [lazyChildProcess, lazyDecimalConstants] });
// Every bundle is ASCII only (wrapBundle checks it; asciiOnly for fast.cjs, which Node's require reads).
wrapBundle('dist/main.cjs');
// The fast answers (scripts/bundle-options.mjs FAST_PARTS): dist/fast.cjs and its parts.
const fastOutputs = [['src/cli/fast.ts', 'dist/fast.cjs', [fastParts]], ...FAST_PARTS.map(([entry, part]) => [entry, `dist/${part}.cjs`, [lazyDecimalConstants]])];
for (const [entry, outfile, plugins] of fastOutputs) {
  // import() of the parts becomes require(): Node's ESM loader would cost more than the answer.
  const { metafile } = await build({ ...common, entryPoints: [entry], outfile, plugins, metafile: true, supported: { 'dynamic-import': false } });
  // fast.cjs itself is required (a few kB); its parts are compiled by the launcher.
  if (outfile === 'dist/fast.cjs') asciiOnly(outfile);
  else wrapBundle(outfile);
  const bytes = metafile.outputs[outfile]?.bytes ?? 0;
  // These must stay small: a dependency on the command line here would undo them.
  // The guard's decides in exact decimals (decimal.js) with the guard's own rule and the budget checks: twice the others' room.
  const limit = outfile.endsWith('fast-guard.cjs') ? 96 * 1024 : 48 * 1024;
  if (bytes > limit) throw new Error(`${outfile} is ${bytes} bytes: something heavy is imported by ${entry}`);
}

// One bundle per command for the commands run every day, in CI and by scripts (bin/load-bundle.cjs
// picks it by the command word): the same program with the other commands' loaders left out, so
// a run reads, checks and deserialises about half as much (the bundle and its code cache).
// Measured whole-process, paired, balance --json against the whole program: see the commit.
// Each everyday command's own bundle, and the bundles commands share (SHARED).
for (const [name, words] of [...EVERYDAY.map((name) => [name, [name]]), ...Object.entries(SHARED)]) {
  // No source map of its own: the whole program's (dist/main.cjs.map) maps the same sources (TALLY_BUILD_MAPS=1 writes them, to read a CPU profile).
  await build({ ...common, sourcemap: process.env.TALLY_BUILD_MAPS ? 'linked' : false, entryPoints: ['src/cli/main.ts'], outfile: `dist/command-${name}.cjs`, plugins: [lazyChildProcess, lazyDecimalConstants, onlyTheseCommands(words), leanCommandBundle(words)] });
  wrapBundle(`dist/command-${name}.cjs`);
}

// The launcher as one module (bin/tally.js loads it): bin/run.cjs inside bin/load-bundle.cjs, one file
// fewer to resolve, read and compile at every start (~1 ms of --version's 57).
const runText = readFileSync('bin/run.cjs', 'utf8');
const loaderText = readFileSync('bin/load-bundle.cjs', 'utf8');
if (loaderText.split("require('./run.cjs')").length !== 2) throw new Error("build: bin/load-bundle.cjs should require('./run.cjs') once");
writeFileSync('dist/launch.cjs', `'use strict';\n// Written by scripts/build.mjs from bin/run.cjs and bin/load-bundle.cjs: edit those.\nconst __run = (() => {\n  const module = { exports: {} };\n  const exports = module.exports;\n${runText}\n  return module.exports;\n})();\n${loaderText.replace("require('./run.cjs')", '__run')}`);
asciiOnly('dist/launch.cjs');

// No V8 code cache is built here: one is good only for the Node that made it, so the launcher
// makes one on the first run of each Node version (bin/load-bundle.cjs), in the user's cache folder.
const launcher = createRequire(import.meta.url)('../bin/load-bundle.cjs');

// What shell completion knows of every command, as data: a Tab then loads no command module.
const program = launcher.load();
const spec = await program.completionSpec();
writeFileSync('dist/completion.json', JSON.stringify(spec));
// The command words with a bundle of their own, those sharing one (by its name), and the global
// options that take a value: the launcher skips their values to find the command word (as the
// command line's parser does), which picks the bundle and names the code cache of its runs.
writeFileSync('dist/commands.json', JSON.stringify({ commands: EVERYDAY, shared: SHARED, valueFlags: spec.options.filter((o) => o.takesValue).flatMap((o) => [o.name.startsWith('-') ? o.name : `--${o.name}`, ...(o.alias ? [o.alias.startsWith('-') ? o.alias : `-${o.alias}`] : [])]) }));
