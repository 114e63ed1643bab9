import type { Migration } from './migration.js';

/**
 * Failure notices per destination: a notice row becomes one per (incident, opened|cleared,
 * destination), `destination` being `email` (the row carries the recipient list, as before) or the
 * name of a configured channel, so each destination is claimed, retried and given up on separately
 * and one that is down does not hold back or repeat the others.
 *
 * The UNIQUE key must widen, which SQLite cannot do in place: the table is rebuilt and every row is
 * carried over as an `email` notice (the only kind that existed).
 */
const migration: Migration = {
  version: 14,
  name: 'notice-destinations',
  sql: `
CREATE TABLE notices_new (
  id INTEGER PRIMARY KEY,
  incident_id INTEGER NOT NULL REFERENCES incidents (id),
  kind TEXT NOT NULL CHECK (kind IN ('opened', 'cleared')),
  destination TEXT NOT NULL DEFAULT 'email',
  recipients TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'sent', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  message_id TEXT NOT NULL,
  claimed_by TEXT,
  lease_until INTEGER,
  next_attempt_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  sent_at INTEGER,
  UNIQUE (incident_id, kind, destination)
);
INSERT INTO notices_new (id, incident_id, kind, destination, recipients, state, attempts, last_error,
  message_id, claimed_by, lease_until, next_attempt_at, created_at, sent_at)
SELECT id, incident_id, kind, 'email', recipients, state, attempts, last_error,
  message_id, claimed_by, lease_until, next_attempt_at, created_at, sent_at
FROM notices;
DROP TABLE notices;
ALTER TABLE notices_new RENAME TO notices;
CREATE INDEX notices_due ON notices (state, next_attempt_at);
`,
};

export default migration;
