#!/usr/bin/env node
require('./load-bundle.cjs').run(process.argv.slice(2));
