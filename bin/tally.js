#!/usr/bin/env node
require('../dist/main.cjs').main(process.argv.slice(2)).then((code) => (process.exitCode = code));
