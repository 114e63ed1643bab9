import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Chromium and the sandbox servers are real: two cores do not take many at once.
    maxWorkers: 2,
    pool: 'forks',
    globalSetup: ['./test/helpers/build-once.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
