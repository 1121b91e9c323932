#!/usr/bin/env node
// The launcher is dist/launch.cjs: bin/load-bundle.cjs with bin/run.cjs inside, one module to
// resolve and compile at every start instead of two (the build writes it). Where it is not there,
// or not a file the build wrote, bin/load-bundle.cjs itself.
const launch = require('node:path').join(__dirname, '..', 'dist', 'launch.cjs');
let launcher;
try {
  if (!require('node:fs').statSync(launch, { throwIfNoEntry: false })?.isFile()) throw new Error('no dist/launch.cjs');
  launcher = require(launch);
} catch {
  launcher = require('./load-bundle.cjs');
}
launcher.run(process.argv.slice(2));
