// Ends a run with the plain line `N passed, N failed` that CI reads, whatever the console reporter
// prints. An error outside any test (an unhandled rejection, a file that fails to load) fails the
// run as vitest does, so it counts as failed here too: the line never says "0 failed" over a red run.
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError> = []): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      failed += module.errors().length;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${unhandledErrors.length ? ` (${unhandledErrors.length} error${unhandledErrors.length === 1 ? '' : 's'} outside a test)` : ''}\n`);
    // A test skips only where a tool it needs is missing; each says which above, and how to install it.
    if (skipped) process.stdout.write('(skipped: a tool those tests need is not installed here, each file says which above; .ci/run installs them all, and under CI=true none is skipped)\n');
  }
}
