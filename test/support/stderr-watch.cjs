// Preloaded by an end-to-end test (node --require): records, in the file TALLY_TEST_STDERR_LOG
// names, whether anything built process.stderr during the run and where (its first stack frames).
// A run that writes nothing there should never build it: for a pipe that costs 1-2 ms of a start.
'use strict';
const { writeFileSync } = require('node:fs');
const log = process.env.TALLY_TEST_STDERR_LOG;
const descriptor = Object.getOwnPropertyDescriptor(process, 'stderr');
if (log && descriptor && typeof descriptor.get === 'function') {
  writeFileSync(log, '');
  let told = false;
  Object.defineProperty(process, 'stderr', {
    ...descriptor,
    get() {
      if (!told) {
        told = true;
        writeFileSync(log, `built at:\n${new Error().stack.split('\n').slice(2, 10).join('\n')}\n`);
      }
      return descriptor.get.call(this);
    },
  });
}
