// Loads dist/main.cjs the way Node's require would, but through node:vm with the V8 code
// cache that the build wrote beside it: compiling the bundle is then skipped (about 20 ms of a
// ~110 ms run on the machine we measure on). A cache from another Node version is rejected
// by V8 and the bundle compiles as usual.
'use strict';
const { readFileSync, writeFileSync, writeSync } = require('node:fs');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

const bundle = join(__dirname, '..', 'dist', 'main.cjs');
const cacheFile = `${bundle}.cache`;

function compile(cachedData) {
  const source = readFileSync(bundle, 'utf8');
  // The same wrapper as Node's CommonJS loader, so the cache matches from build to run.
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  return new vm.Script(wrapper, { filename: bundle, cachedData });
}

// import() has no loader inside vm-compiled code (and the small bundles turn theirs into
// require(), which cannot load an ES module): the bundles ask for this one instead.
globalThis.__tallyImport = (specifier) => import(require.resolve(specifier, { paths: [dirname(bundle)] })).catch(() => import(specifier));
// Where such a package's file is, for code that loads it elsewhere (jq in a worker thread).
globalThis.__tallyResolve = (specifier) => require.resolve(specifier, { paths: [dirname(bundle)] });
// The package's own folder (schemas/ is shipped there).
globalThis.__tallyRoot = join(__dirname, '..');

function run(script) {
  const module = { exports: {} };
  // The launcher's own require: bin/ and dist/ sit side by side, so packages resolve alike, and
  // node:module (createRequire), with its source-map machinery, need not load.
  script.runInThisContext()(module.exports, require, module, bundle, dirname(bundle));
  return module.exports;
}

/** The bundle's exports, compiled from the code cache when it fits. */
exports.load = function load() {
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // No cache (not built yet, or removed): compile normally.
  }
  return run(compile(cachedData));
};

/** The first words of the command lines dist/fast.cjs may answer without the full program. */
const FAST = new Set(['--version', '-V', 'statusline', 'complete']);

/**
 * A fast answer, written straight to file descriptor 1: building process.stdout (its stream
 * classes) costs a tenth of a bare Node start, more than the answer. A closed pipe ends the
 * answer quietly, as it does the full program's output; a pipe that would block (non-blocking,
 * full) takes the rest through process.stdout, which waits for it. True when process.stdout
 * was used.
 */
function writeDirect(text) {
  let bytes = Buffer.from(text);
  try {
    while (bytes.length > 0) bytes = bytes.subarray(writeSync(1, bytes));
    return false;
  } catch (error) {
    if (error.code === 'EPIPE') return false;
    if (error.code !== 'EAGAIN') throw error;
    process.stdout.write(bytes);
    return true;
  }
}

/**
 * Runs tally and ends the process with its exit code. `--version`, a cached statusline and
 * completion are tried first in dist/fast.cjs (a few kB, no code cache needed); the full bundle
 * loads only when they cannot answer. When nothing is left in the stdout and stderr buffers
 * (their writes were synchronous: files, terminals, pipes on Linux), exiting at once skips the
 * heap tear-down (about 4 ms); otherwise Node drains the streams first. An answer that never
 * touched the streams exits at once without building them to ask.
 */
exports.run = function run(argv) {
  const finish = (code, streams = true) => {
    process.exitCode = code;
    if (!streams || (process.stdout.writableLength === 0 && process.stderr.writableLength === 0)) process.exit(code);
  };
  const full = (triedFast) => exports.load().main(argv, { triedFast }).then(finish);
  if (!FAST.has(argv[0])) return void full(false);
  let fast;
  try {
    fast = require(join(__dirname, '..', 'dist', 'fast.cjs'));
  } catch {
    return void full(false); // not built: the full bundle answers these too
  }
  let streams = false;
  const write = (text) => {
    if (streams) process.stdout.write(text);
    else streams = writeDirect(text);
  };
  fast.answerFast(argv, join(__dirname, '..', 'dist', 'completion.json'), write).then(
    (answered) => (answered ? finish(0, streams || answered === 'streams') : full(true)),
    () => full(true), // the full program reports what went wrong, as one line
  );
};

/**
 * Build step: compile and load the bundle once, let `exercise` run typical commands with it, then
 * save V8's code cache. The cache then holds the compiled code of what those commands ran
 * (the command line, the HTTP core, JSON and table output), which a run otherwise compiles
 * afresh; what they did not run is compiled when first used, as without a cache.
 */
exports.writeCache = async function writeCache(exercise) {
  const script = compile(undefined);
  const bundleExports = run(script);
  if (exercise) await exercise(bundleExports);
  writeFileSync(cacheFile, script.createCachedData());
};
