import { defineConfig } from 'vitest/config';

/**
 * The suites that run against both store engines. The `postgres` project runs them again with
 * REPORTD_TEST_ENGINE=postgres on a throwaway PostgreSQL; add a glob here to put a suite on both.
 */
const bothEngines = [
  'test/store/**/*.test.ts',
  'test/sync/**/*.test.ts',
  'test/delivery/outbox*.test.ts',
  // The generic lease on its own (claim, renew, release, takeover, stale writes).
  'test/queue/leased-rows.test.ts',
  'test/daemon/shards.test.ts',
  'test/daemon/cluster-*.test.ts',
  'test/export/export-tables.test.ts',
  // Loads into the cluster's PostgreSQL (it skips itself in the sqlite project).
  'test/export/postgres-loads.test.ts',
  'test/cli/store-engines.test.ts',
  // Two daemon processes on one PostgreSQL store (it skips itself in the sqlite project).
  'test/daemon/cluster-slots.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Chromium, the sandbox servers and PostgreSQL are real: two cores do not take many at once.
    maxWorkers: 2,
    pool: 'forks',
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // `npm test` runs both projects; `npm run test:pg` (--project postgres) only the second.
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          // Pinned, so a REPORTD_TEST_ENGINE left in the shell cannot move this project off SQLite.
          env: { REPORTD_TEST_ENGINE: 'sqlite' },
          globalSetup: ['./test/helpers/build-once.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: bothEngines,
          env: { REPORTD_TEST_ENGINE: 'postgres' },
          globalSetup: ['./test/helpers/build-once.ts', './test/helpers/postgres-setup.ts'],
        },
      },
    ],
  },
});
