// Preloaded into the built binary by end-to-end tests (node --require): Date reads
// TALLY_TEST_NOW (ms since the epoch) as "now" and runs on from there, so a test of what a run
// shows never depends on the day or the hour it happens to run at. tally itself reads no such
// variable: the clock is the test's, not the product's.
'use strict';
const start = Number(process.env.TALLY_TEST_NOW);
if (process.env.TALLY_TEST_NOW !== undefined && Number.isFinite(start)) {
  const RealDate = Date;
  const offset = start - RealDate.now();
  class FixedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...args);
    }
    static now() {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = FixedDate;
}
