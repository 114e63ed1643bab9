import type { Migration } from './migration.js';

/**
 * What each daemon serves: one row per (instance, report) with a hash of the report's effective
 * definition (daemon/report-fingerprint.ts). Two live instances with different hashes for one report
 * name hold that report's deliveries until they agree (daemon/definition-watch.ts). Rows go with their
 * instance's row (pruned with it), so a stopped daemon's definitions no longer count.
 */
const migration: Migration = {
  version: 28,
  name: 'report-fingerprints',
  sql: `
CREATE TABLE report_fingerprints (
  instance TEXT NOT NULL,            -- instances.id
  report TEXT NOT NULL,              -- the report's name
  fingerprint TEXT NOT NULL,         -- hex hash of the normalised definition, never the definition
  PRIMARY KEY (instance, report)
);
`,
};

export default migration;
