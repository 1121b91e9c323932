#!/usr/bin/env node
// The launcher is dist/launch.cjs: bin/load-bundle.cjs with bin/run.cjs inside, one module to
// resolve and compile at every start instead of two (the build writes it). Where it is not there,
// not a regular file or not one that loads, bin/load-bundle.cjs itself.
const launch = require('node:path').join(__dirname, '..', 'dist', 'launch.cjs');
let launcher;
try {
  if (require('node:fs').statSync(launch, { throwIfNoEntry: false })?.isFile()) launcher = require(launch);
} catch {
  // a damaged build: bin/'s own
}
(launcher ?? require('./load-bundle.cjs')).run(process.argv.slice(2));
