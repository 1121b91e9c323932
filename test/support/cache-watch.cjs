// Preloaded (node -r) by test/e2e/bundles.test.ts: whether V8 took each code cache the run offered
// it (vm.Script's cachedDataRejected), said on stderr at exit as `cache-watch {"rejected":[...]}`.
'use strict';
const vm = require('node:vm');
const rejected = [];
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(code, options) {
    super(code, options);
    if (options && options.cachedData !== undefined) rejected.push(this.cachedDataRejected === true);
  }
};
process.on('exit', () => require('node:fs').writeSync(2, `cache-watch ${JSON.stringify({ rejected })}\n`));
