// Loads dist/main.cjs the way Node's require would, but through node:vm with the V8 code
// cache that the build wrote beside it: compiling the bundle is then skipped (about 20 ms of a
// ~110 ms run on the machine we measure on). A cache from another Node version is rejected
// by V8 and the bundle compiles as usual.
'use strict';
const { readFileSync, writeFileSync, writeSync } = require('node:fs');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

const dist = join(__dirname, '..', 'dist');
/** The whole program: every command. */
const bundle = join(dist, 'main.cjs');

function compile(file, cachedData) {
  const source = readFileSync(file, 'utf8');
  // The same wrapper as Node's CommonJS loader, so the cache matches from build to run.
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  return new vm.Script(wrapper, { filename: file, cachedData });
}

// import() has no loader inside vm-compiled code (and the small bundles turn theirs into
// require(), which cannot load an ES module): the bundles ask for this one instead.
globalThis.__tallyImport = (specifier) => import(require.resolve(specifier, { paths: [dirname(bundle)] })).catch(() => import(specifier));
// Where such a package's file is, for code that loads it elsewhere (jq in a worker thread).
globalThis.__tallyResolve = (specifier) => require.resolve(specifier, { paths: [dirname(bundle)] });
// The package's own folder (schemas/ is shipped there).
globalThis.__tallyRoot = join(__dirname, '..');

function run(script, file) {
  const module = { exports: {} };
  // The launcher's own require: bin/ and dist/ sit side by side, so packages resolve alike, and
  // node:module (createRequire), with its source-map machinery, need not load.
  script.runInThisContext()(module.exports, require, module, file, dirname(file));
  return module.exports;
}

/** A bundle's exports (the whole program's by default), compiled from its code cache when it fits. */
exports.load = function load(file = bundle) {
  let cachedData;
  try {
    cachedData = readFileSync(`${file}.cache`);
  } catch {
    // No cache (not built yet, or removed): compile normally.
  }
  return run(compile(file, cachedData), file);
};

/**
 * The bundle of one command (dist/command-NAME.cjs), for the commands run every day and in CI:
 * it holds that command and what it uses, not the other thirty, so a run reads and deserialises
 * about half as much (its code cache too). The build lists them, with the global options that
 * take a value (dist/commands.json), so that the command word is found as the command line's
 * parser finds it; anything else (no command word, --help alone, another command) gets the whole
 * program. Undefined: the whole program.
 */
exports.routeOf = function routeOf(argv, routes) {
  if (!routes) return undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--') return undefined;
    if (word.startsWith('-')) {
      if (!word.includes('=') && routes.valueFlags.includes(word)) i++;
      continue;
    }
    return routes.commands.includes(word) ? join(dist, `command-${word}.cjs`) : undefined;
  }
  return undefined;
};

function readRoutes() {
  try {
    return JSON.parse(readFileSync(join(dist, 'commands.json'), 'utf8'));
  } catch {
    return undefined; // not built: the whole program runs every command
  }
}

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
  const full = (triedFast) => exports.load(exports.routeOf(argv, readRoutes())).main(argv, { triedFast }).then(finish);
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
exports.writeCache = async function writeCache(exercise, file = bundle) {
  const script = compile(file, undefined);
  const bundleExports = run(script, file);
  if (exercise) await exercise(bundleExports);
  writeFileSync(`${file}.cache`, script.createCachedData());
};
