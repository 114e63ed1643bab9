import type { Migration } from './migration.js';

/**
 * Failure incidents and the notices about them.
 *
 * `incidents`: one row per incident (a delivery that failed for good, a refused credential, a sync
 * failing several passes in a row, a set gone). `key` names what failed (`credential:acme`); the
 * partial UNIQUE index allows one OPEN incident per key, so two daemons seeing the same failure open
 * it once, and clearing is one conditional UPDATE that only one process can win.
 *
 * `notices`: the outbox of failure notices, kept beside `deliveries` rather than in it (a notice has
 * no query set, run or rendered files): one row per (incident, opened|cleared), created in the same
 * transaction as the change of the incident, claimed with a lease like a delivery, sent with a
 * Message-ID derived from its id so a resend after a crash is recognisable as the same message.
 */
const migration: Migration = {
  version: 9,
  name: 'incidents',
  sql: `
CREATE TABLE incidents (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  kind TEXT NOT NULL
    CHECK (kind IN ('delivery_failed', 'credential_refused', 'sync_failing', 'set_gone')),
  report TEXT,
  detail TEXT NOT NULL,
  opened_at INTEGER NOT NULL,
  cleared_at INTEGER,
  cleared_detail TEXT
);
CREATE UNIQUE INDEX incidents_one_open ON incidents (key) WHERE cleared_at IS NULL;
CREATE INDEX incidents_recent ON incidents (opened_at);

CREATE TABLE notices (
  id INTEGER PRIMARY KEY,
  incident_id INTEGER NOT NULL REFERENCES incidents (id),
  kind TEXT NOT NULL CHECK (kind IN ('opened', 'cleared')),
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
  UNIQUE (incident_id, kind)
);
CREATE INDEX notices_due ON notices (state, next_attempt_at);
`,
};

export default migration;
