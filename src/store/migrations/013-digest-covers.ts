import type { Migration } from './migration.js';

/**
 * Digest deliveries: one outbox row for a report across all its query sets. `covers` is the exact set
 * of (account, query set, run) the message covers, as canonical JSON (sorted), and the digest's
 * identity: a UNIQUE index on (report, destination, covers, generation) makes enqueueing idempotent
 * exactly as the table's own key does for per-set rows. Written against the table as migration 11
 * left it (which added `destination`): a digest goes to every destination of its report, one row each.
 *
 * Additive on purpose: rows written before this migration keep `covers` NULL and still mean "this
 * report, this (set, run)", so nothing already sent is sent again. A digest row has no single set:
 * its `query_set_id` is 0 and its `run_id` the digest's ordinal within its report, which keeps the
 * table's UNIQUE (report, destination, set, run, generation) key satisfied without rebuilding the
 * table (a rebuild would cascade through delivery_recipients).
 */
const migration: Migration = {
  version: 13,
  name: 'digest-covers',
  sql: `
ALTER TABLE deliveries ADD COLUMN covers TEXT;
CREATE UNIQUE INDEX deliveries_digest_key ON deliveries (report, destination, covers, generation)
  WHERE covers IS NOT NULL;
`,
};

export default migration;
