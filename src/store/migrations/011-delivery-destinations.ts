import type { Migration } from './migration.js';

/**
 * Every destination is an outbox row: `deliveries` gains `destination` (`email`, or the name of a
 * `channels[]` entry) and its UNIQUE key becomes (report, destination, set, run, generation), so a
 * Slack outage retries the Slack row alone and never resends the email. `channel_state` is a sender's
 * checkpoint inside one delivery (Slack: the `ts` of the message already posted, so a retry after a
 * failed file upload uploads into that thread instead of posting the message twice).
 *
 * SQLite cannot change a UNIQUE constraint in place, so the table is rebuilt. `delivery_recipients`
 * references it with ON DELETE CASCADE and foreign keys are on (and cannot be turned off inside the
 * migration's transaction), so it is rebuilt alongside and dropped first: dropping `deliveries`
 * then cascades into nothing. Renaming the new tables rewrites their references (SQLite ≥ 3.26).
 * Existing rows are email rows.
 */
const migration: Migration = {
  version: 11,
  name: 'delivery-destinations',
  sql: `
CREATE TABLE deliveries_new (
  id INTEGER PRIMARY KEY,
  report TEXT NOT NULL,
  destination TEXT NOT NULL DEFAULT 'email',
  query_set_id INTEGER NOT NULL,
  run_id INTEGER NOT NULL,
  generation INTEGER NOT NULL DEFAULT 0,
  account TEXT,
  state TEXT NOT NULL DEFAULT 'pending'
    CHECK (state IN ('pending', 'rendering', 'sending', 'sent', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  message_id TEXT NOT NULL,
  claimed_by TEXT,
  lease_until INTEGER,
  next_attempt_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  sent_at INTEGER,
  channel_state TEXT,
  UNIQUE (report, destination, query_set_id, run_id, generation)
);
INSERT INTO deliveries_new (id, report, destination, query_set_id, run_id, generation, account, state,
  attempts, last_error, message_id, claimed_by, lease_until, next_attempt_at, created_at, updated_at, sent_at)
SELECT id, report, 'email', query_set_id, run_id, generation, account, state, attempts, last_error,
  message_id, claimed_by, lease_until, next_attempt_at, created_at, updated_at, sent_at FROM deliveries;

CREATE TABLE delivery_recipients_new (
  delivery_id INTEGER NOT NULL REFERENCES deliveries_new(id) ON DELETE CASCADE,
  recipient TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending'
    CHECK (state IN ('pending', 'accepted', 'deferred', 'refused')),
  reply TEXT,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (delivery_id, recipient)
);
INSERT INTO delivery_recipients_new SELECT delivery_id, recipient, state, reply, updated_at FROM delivery_recipients;

DROP TABLE delivery_recipients;
DROP TABLE deliveries;
ALTER TABLE deliveries_new RENAME TO deliveries;
ALTER TABLE delivery_recipients_new RENAME TO delivery_recipients;
CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at);
`,
};

export default migration;
