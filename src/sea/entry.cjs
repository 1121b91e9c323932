// The single executable's launcher (its SEA main script; scripts/build-binary.mjs bundles it with
// bin/run.cjs): the same run as `node bin/tally.js` (the fast answers first, then the whole
// program, the same exit and flush), with the program and the fast answers taken from the binary's
// assets instead of dist/, each compiled from the V8 code cache the same binary made at build time
// (an asset too). Nothing is read from beside the binary, and nothing is written there.
'use strict';
const sea = require('node:sea');
const vm = require('node:vm');
const { readRoutes, route, run, wrapped } = require('../../bin/run.cjs');

/** The build's first pass asks this binary to write the code caches of its runs here (the final binary has them inside). */
const cacheOut = process.env.TALLY_SEA_CACHE_OUT;
/** Scripts compiled without a built-in cache, to write to cacheOut once a run ends well. */
const uncached = [];

/**
 * An asset's bytes where the binary holds them (getRawAsset, Node 20.12 and later): nothing copied.
 * Read only: that memory is the executable's own, mapped from its file, and is never written.
 * (getAsset copies each first: 0.7 MB for a command's bundle and its code cache; its UTF-8
 * decoding of a bundle, below, was slower than Latin-1's.)
 */
function assetBytes(name) {
  try {
    return Buffer.from(typeof sea.getRawAsset === 'function' ? sea.getRawAsset(name) : sea.getAsset(name));
  } catch {
    return undefined;
  }
}

/** A bundle among the assets, compiled (from its code cache when the binary has one) and run as a CommonJS module. */
function loadAsset(name) {
  // The bundles are ASCII only (the build refuses anything else): read as Latin-1, their bytes become V8's one-byte string as they are, without decoding UTF-8.
  const bytes = assetBytes(name);
  if (bytes === undefined) throw new Error(`${name} is not among this binary's assets`);
  const source = bytes.toString('latin1');
  const cachedData = assetBytes(`${name}.cache`);
  // In the same wrapper as Node's CommonJS loader (and bin/load-bundle.cjs); the build's bundles come with it.
  const script = new vm.Script(wrapped(source), { filename: name, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) uncached.push({ name, script });
  const module = { exports: {} };
  // The bundles hold every dependency: they require Node's built-ins only, which this require gives.
  script.runInThisContext()(module.exports, require, module, name, '/tally');
  return module.exports;
}

/** Each asset runs once; a dependency's bundle (deps/PACKAGE.cjs) when src/sea/external.ts first asks for it. */
const loaded = new Map();
globalThis.__tallyLoadAsset = (name) => {
  if (!loaded.has(name)) loaded.set(name, loadAsset(name));
  return loaded.get(name);
};
// fast.cjs asks for the part of the answer it gives (fast-statusline.cjs, fast-guard.cjs, fast-complete.cjs), as bin/load-bundle.cjs gives them.
globalThis.__tallyLoadPart = (name) => globalThis.__tallyLoadAsset(name);

run(process.argv.slice(2), {
  name: 'main.cjs',
  fast: () => globalThis.__tallyLoadAsset('fast.cjs'),
  // An everyday command in its own bundle, as the package runs it (bin/run.cjs route).
  program: (argv) => {
    const routes = readRoutes(assetBytes('dist/commands.json')?.toString('utf8'));
    const { own } = route(argv, routes);
    return globalThis.__tallyLoadAsset(own ?? 'main.cjs');
  },
  saveCaches() {
    if (!cacheOut) return;
    const { writeFileSync } = require('node:fs');
    for (const { name, script } of uncached.splice(0)) writeFileSync(`${cacheOut}/${name.replaceAll('/', '+')}.cache`, script.createCachedData());
  },
});
