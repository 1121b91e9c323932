import { defineConfig } from 'vitest/config';

export default defineConfig({
  define: { __TALLY_VERSION__: JSON.stringify('0.0.0-test') },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // End-to-end tests spawn the CLI; two cores are shared with the machine's other work.
    maxWorkers: 2,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
