import type { Migration } from './migration.js';

/**
 * Failure notices become rows of the one delivery queue (`deliveries`, kind `notice`), so they are
 * claimed with a fencing token, kept by the heartbeat and retried by the same policy as reports and
 * alerts instead of by a second loop over a second table.
 *
 * A notice row's key: `report` is `notice:` + the incident's key (the UNIQUE key does not include `kind`:
 * only a report literally named `notice:<incident key>` could meet a notice's row, and then only with
 * the incident's id as its set and 0 or 1 as its run), `query_set_id` the incident's id and
 * `run_id` 0 for `opened`, 1 for `cleared`: one row per (incident, event, destination), as before.
 * Email recipients move to `delivery_recipients` (accepted when the notice was sent, refused when it
 * failed). Every notice is carried over, sent ones too, so `history` keeps them; then `notices` goes.
 *
 * SQLite cannot widen the `kind` CHECK in place: `deliveries` is rebuilt, with `delivery_recipients`
 * (it references it), as migration 011 did. PostgreSQL swaps the constraint.
 */
const COLUMNS = `id, report, destination, query_set_id, run_id, generation, account, state, attempts,
  last_error, message_id, claimed_by, lease_until, next_attempt_at, created_at, updated_at, sent_at,
  channel_state, kind, covers, token`;

/** The notices as queue rows, and their recipients; `{deliveries}` is the table they go into. */
const moveNotices = (deliveries: string, recipients: string, eachRecipient: string) => `
INSERT INTO ${deliveries} (report, destination, query_set_id, run_id, generation, account, state, attempts,
  last_error, message_id, claimed_by, lease_until, next_attempt_at, created_at, updated_at, sent_at, kind, token)
SELECT 'notice:' || i.key, n.destination, n.incident_id, CASE n.kind WHEN 'opened' THEN 0 ELSE 1 END, 0,
  NULL, n.state, n.attempts, n.last_error, n.message_id, n.claimed_by, n.lease_until, n.next_attempt_at,
  n.created_at, COALESCE(n.sent_at, n.created_at), n.sent_at, 'notice', n.token
FROM notices n JOIN incidents i ON i.id = n.incident_id ORDER BY n.id;
INSERT INTO ${recipients} (delivery_id, recipient, state, reply, updated_at)
SELECT d.id, r.value,
  CASE n.state WHEN 'sent' THEN 'accepted' WHEN 'failed' THEN 'refused' ELSE 'pending' END,
  CASE n.state WHEN 'failed' THEN n.last_error END, COALESCE(n.sent_at, n.created_at)
FROM notices n
JOIN ${deliveries} d ON d.kind = 'notice' AND d.query_set_id = n.incident_id
  AND d.run_id = CASE n.kind WHEN 'opened' THEN 0 ELSE 1 END AND d.destination = n.destination,
  ${eachRecipient}
ORDER BY n.id;
DROP TABLE notices;
`;

const migration: Migration = {
  version: 21,
  name: 'notices-on-the-queue',
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
  kind TEXT NOT NULL DEFAULT 'report' CHECK (kind IN ('report', 'alert', 'notice')),
  covers TEXT,
  token TEXT,
  UNIQUE (report, destination, query_set_id, run_id, generation)
);
INSERT INTO deliveries_new (${COLUMNS}) SELECT ${COLUMNS} FROM deliveries ORDER BY id;

CREATE TABLE delivery_recipients_new (
  delivery_id INTEGER NOT NULL REFERENCES deliveries_new(id) ON DELETE CASCADE,
  recipient TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending'
    CHECK (state IN ('pending', 'accepted', 'deferred', 'refused')),
  reply TEXT,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (delivery_id, recipient)
);
INSERT INTO delivery_recipients_new (delivery_id, recipient, state, reply, updated_at)
SELECT delivery_id, recipient, state, reply, updated_at FROM delivery_recipients ORDER BY rowid;
${moveNotices('deliveries_new', 'delivery_recipients_new', 'json_each(n.recipients) r')}
DROP TABLE delivery_recipients;
DROP TABLE deliveries;
ALTER TABLE deliveries_new RENAME TO deliveries;
ALTER TABLE delivery_recipients_new RENAME TO delivery_recipients;
CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at);
CREATE UNIQUE INDEX deliveries_digest_key ON deliveries (report, destination, covers, generation)
  WHERE covers IS NOT NULL;
`,
  postgres: `
ALTER TABLE deliveries DROP CONSTRAINT deliveries_kind_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_kind_check CHECK (kind IN ('report', 'alert', 'notice'));
${moveNotices('deliveries', 'delivery_recipients', 'json_array_elements_text(n.recipients::json) AS r(value)')}
`,
};

export default migration;
