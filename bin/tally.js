#!/usr/bin/env node
require('./load-bundle.cjs').load().main(process.argv.slice(2)).then((code) => (process.exitCode = code));
