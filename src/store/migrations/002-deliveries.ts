import type { Migration } from './migration.js';

/**
 * The delivery outbox and the scheduler's memory.
 *
 * `deliveries`: one row per (report, query set, run, generation) due for sending. The UNIQUE key is what
 * makes enqueueing idempotent across restarts and across two daemons on one file; `generation` only
 * grows through `reportd deliver --force`, the one way to send the same run again on purpose.
 * Times are epoch milliseconds (they are compared with the injected clock; lease checks need numbers).
 *
 * `job_state`: per scheduler job, the last slot it fired for (so a slot missed while the daemon was down
 * runs once at start-up), the outcome of its last run (for /readyz and `history`), and a small JSON
 * cursor (the newest run a `trigger: new_run` report has already seen, per query set).
 */
const migration: Migration = {
  version: 2,
  name: 'deliveries',
  sql: `
CREATE TABLE deliveries (
  id INTEGER PRIMARY KEY,
  report TEXT NOT NULL,
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
  UNIQUE (report, query_set_id, run_id, generation)
);
CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at);

CREATE TABLE job_state (
  job TEXT PRIMARY KEY,
  last_slot_at INTEGER,
  last_started_at INTEGER,
  last_finished_at INTEGER,
  last_outcome TEXT CHECK (last_outcome IN ('ok', 'failed')),
  last_error TEXT,
  cursor TEXT
);
`,
};

export default migration;
