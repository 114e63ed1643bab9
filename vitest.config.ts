import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/sequencer.js';

/**
 * The suites that run against both store engines. The `postgres` project runs them again with
 * REPORTD_TEST_ENGINE=postgres on a throwaway PostgreSQL; add a glob here to put a suite on both.
 */
const bothEngines = [
  'test/store/**/*.test.ts',
  'test/sync/**/*.test.ts',
  'test/delivery/outbox*.test.ts',
  // A recipient table's readers: on the outbox across kill -9 (real processes), each reader's slice
  // alone, and bad tables judged against the store. Not local-time.test.ts: it fakes the host's
  // clock, and on PostgreSQL slots are timed by the database's clock (cluster-clock-skew tests that).
  'test/recipients/outbox-*.test.ts',
  'test/recipients/isolation.test.ts',
  'test/recipients/check-cli.test.ts',
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

/**
 * The `unit` project: the files that start no process, browser or database server and need no build,
 * found by what they and the test modules they import (helpers, fixtures, transitively) contain, so a
 * new test lands on the right side by itself, and a file that starts the CLI through a helper is not
 * counted as a unit. A subset of the `sqlite` project, for a developer's answer in under a minute:
 * `npm run test:unit`. `npm test` names sqlite and postgres, so nothing runs twice; the project exists
 * only when asked for.
 */
const endToEnd =
  /helpers\/(cli|gated-chromium|chromium-processes|postgres|daemon-config|sqlite-locker)|puppeteer|child_process|chromium|startSandbox|smtp-server|spawn|fork\(|execFile|bin\/reportd|dist\//i;
const startsPeers = new Map<string, boolean>();
/** Whether the test module at `path`, or a test module it imports, starts a peer (see `endToEnd`). */
function startsPeer(path: string): boolean {
  const known = startsPeers.get(path);
  if (known !== undefined) return known;
  startsPeers.set(path, false); // an import cycle adds nothing
  const text = readFileSync(path, 'utf8');
  const imported = [...text.matchAll(/from '(\.{1,2}\/[^']+)'/g)]
    .map(([, spec]) => resolve(dirname(path), spec!).replace(/\.js$/, '.ts'))
    .filter((file) => file.startsWith(testRoot) && existsSync(file));
  const result = endToEnd.test(text) || imported.some(startsPeer);
  startsPeers.set(path, result);
  return result;
}
const testRoot = resolve('test') + sep;
function unitFiles(dir = 'test'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return unitFiles(path);
    return path.endsWith('.test.ts') && !startsPeer(resolve(path)) ? [path] : [];
  });
}
const argv = process.argv;
const unitAsked = argv.some(
  (arg, i) => arg === '--project=unit' || (arg === '--project' && argv[i + 1] === 'unit'),
);

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Twice the cores: most files spend their time waiting (a store outage, lease expiries, cron
    // slots, Chromium, a faked clock), about a third of a core each, so with one worker per core two
    // cores sat two-thirds idle. Longest first (test/helpers/sequencer.ts), so the waiting starts at
    // once. REPORTD_TEST_WORKERS overrides it (1 to debug a file's interplay, more on a bigger box).
    maxWorkers: Number(process.env.REPORTD_TEST_WORKERS) || 2 * availableParallelism(),
    sequence: { sequencer: LongestFirst },
    pool: 'forks',
    // A worker runs file after file in one process instead of a fresh process per file: each fresh
    // one paid about a second of CPU to start vitest and import src/ and its packages again, some 290
    // times a run, on 2 cores (test/report: 293 -> 259 s of CPU; the unit files 79 -> 45 s). A file
    // that changes process-wide state puts it back (test/helpers/env.ts for environment variables).
    isolate: false,
    setupFiles: ['./test/helpers/worker-env.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // `npm test` runs sqlite and postgres; `npm run test:pg` (--project postgres) only the second;
    // `npm run test:unit` (--project unit) the quick subset above.
    projects: [
      ...(unitAsked
        ? [
            {
              extends: true as const,
              test: { name: 'unit', include: unitFiles(), env: { REPORTD_TEST_ENGINE: 'sqlite' } },
            },
          ]
        : []),
      {
        extends: true as const,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          // Pinned, so a REPORTD_TEST_ENGINE left in the shell cannot move this project off SQLite.
          env: { REPORTD_TEST_ENGINE: 'sqlite' },
          globalSetup: ['./test/helpers/build-once.ts'],
        },
      },
      {
        extends: true as const,
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
