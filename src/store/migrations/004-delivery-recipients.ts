import type { Migration } from './migration.js';

/**
 * Per-recipient state of a delivery. One outbox row is one message to one set of destinations; each
 * destination settles on its own: an email recipient the server accepted is done, one it deferred
 * (4xx: greylisting, mailbox full) is tried again with the same Message-ID, one it refused (5xx) is
 * reported by name. A future channel (a Slack channel, a webhook URL) is one more `recipient` string
 * of its own outbox row, with the same four states.
 *
 * `reply` is the server's one-line answer for that recipient (scrubbed where it is written).
 */
const migration: Migration = {
  version: 4,
  name: 'delivery-recipients',
  sql: `
CREATE TABLE delivery_recipients (
  delivery_id INTEGER NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
  recipient TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending'
    CHECK (state IN ('pending', 'accepted', 'deferred', 'refused')),
  reply TEXT,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (delivery_id, recipient)
);
`,
};

export default migration;
