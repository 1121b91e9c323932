// Loads dist/main.cjs the way Node's require would, but through node:vm with the V8 code
// cache that the build wrote beside it: compiling the bundle is then skipped (about 20 ms of a
// ~110 ms run on the machine we measure on). A cache from another Node version is rejected
// by V8 and the bundle compiles as usual.
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
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

function run(script) {
  const module = { exports: {} };
  // import() has no loader inside vm-compiled code; the bundle asks for this one instead.
  globalThis.__tallyImport = (specifier) => import(require.resolve(specifier, { paths: [dirname(bundle)] })).catch(() => import(specifier));
  globalThis.__tallyRequire = require;
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
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

/**
 * Runs tally and ends the process with its exit code. When nothing is left in the stdout and
 * stderr buffers (their writes were synchronous: files, terminals, pipes on Linux), exiting at
 * once skips the heap tear-down (about 4 ms); otherwise Node drains the streams first.
 */
exports.run = function run(argv) {
  exports.load().main(argv).then((code) => {
    process.exitCode = code;
    if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit(code);
  });
};

/** Build step: compile and load the bundle once, then save V8's code cache for it. */
exports.writeCache = function writeCache() {
  const script = compile(undefined);
  run(script);
  writeFileSync(cacheFile, script.createCachedData());
};
