// Preloaded by an end-to-end test (node --require): records, in the files TALLY_TEST_STDERR_LOG
// and TALLY_TEST_STDIN_LOG name, whether anything built process.stderr or process.stdin during the
// run and where (its first stack frames). A run that writes nothing to stderr should never build
// it, and a hook should read its event without stdin's stream: for a pipe each costs a start 1-6 ms.
'use strict';
const { writeFileSync } = require('node:fs');

function watch(name, log) {
  const descriptor = Object.getOwnPropertyDescriptor(process, name);
  if (!log || !descriptor || typeof descriptor.get !== 'function') return;
  writeFileSync(log, '');
  let told = false;
  Object.defineProperty(process, name, {
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

watch('stderr', process.env.TALLY_TEST_STDERR_LOG);
watch('stdin', process.env.TALLY_TEST_STDIN_LOG);

// TALLY_TEST_ORDER_LOG: a line for each HTTP request made ("request") and one when process.stdout
// is first built ("stdout"), in the order they came: a run builds its results' stream while its
// first request is on its way, not before.
const order = process.env.TALLY_TEST_ORDER_LOG;
if (order) {
  const { appendFileSync } = require('node:fs');
  writeFileSync(order, '');
  const { ClientRequest } = require('node:http');
  const end = ClientRequest.prototype.end;
  ClientRequest.prototype.end = function (...args) {
    appendFileSync(order, 'request\n');
    return end.apply(this, args);
  };
  const descriptor = Object.getOwnPropertyDescriptor(process, 'stdout');
  if (descriptor && typeof descriptor.get === 'function') {
    let told = false;
    Object.defineProperty(process, 'stdout', {
      ...descriptor,
      get() {
        if (!told) {
          told = true;
          appendFileSync(order, 'stdout\n');
        }
        return descriptor.get.call(this);
      },
    });
  }
}
