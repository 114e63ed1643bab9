import type { Migration } from './migration.js';

/**
 * How far each daemon's host clock is from the database's (store/db-clock.ts), written with every
 * heartbeat, so `status` and the status page can say which host is off. NULL: a daemon that predates
 * this column, or a SQLite store (one host, one clock).
 */
const migration: Migration = {
  version: 31,
  name: 'instance-clock-skew',
  sql: `
ALTER TABLE instances ADD COLUMN clock_skew_ms INTEGER; -- host clock minus the database's, ms
`,
};

export default migration;
