// Preloaded (node -r) by test/e2e/bundles.test.ts: watches the V8 settings a run changes while it
// runs (src/heap.ts) and which of Node's built-in modules load while one is changed (each compiles
// from its source then, Node's code cache refused). At exit, one line on stderr:
// `flag-watch {"set":N,"loaded":[...]}`.
'use strict';
const v8 = require('node:v8');
const fs = require('node:fs');
const setFlags = v8.setFlagsFromString;
let changedAt;
let set = 0;
const loaded = [];
v8.setFlagsFromString = function watched(flags) {
  if (/=1$/.test(flags)) {
    set++;
    changedAt ??= process.moduleLoadList.length;
  } else if (changedAt !== undefined) {
    loaded.push(...process.moduleLoadList.slice(changedAt));
    changedAt = undefined;
  }
  return setFlags.call(this, flags);
};
process.on('exit', () => {
  if (changedAt !== undefined) loaded.push(...process.moduleLoadList.slice(changedAt), '(still changed at exit)');
  fs.writeSync(2, `flag-watch ${JSON.stringify({ set, loaded })}\n`);
});
