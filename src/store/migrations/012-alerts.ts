import type { Migration } from './migration.js';

/**
 * Alerts (issue 13).
 *
 * `deliveries.kind`: what an outbox row carries, `report` (every row before this migration) or `alert`;
 * the worker picks the message builder by it, and a later destination column (Slack, Teams, webhook)
 * composes with it. An alert row's `report` column holds the alert's name (config names of reports and
 * alerts may not collide, so the outbox's UNIQUE key still means one row per (alert, set, run)).
 *
 * `alert_cursors`: the newest run each (alert, account, set) was evaluated on. No row means the alert
 * has never looked at that set: the first evaluation records the newest run without mailing history.
 *
 * `alert_firings`: what fired for one (alert, set, run), as JSON, written with the outbox row so the
 * email says exactly what was evaluated, whenever it is sent.
 */
const migration: Migration = {
  version: 12,
  name: 'alerts',
  sql: `
ALTER TABLE deliveries ADD COLUMN kind TEXT NOT NULL DEFAULT 'report' CHECK (kind IN ('report', 'alert'));

CREATE TABLE alert_cursors (
  alert TEXT NOT NULL,
  account TEXT NOT NULL,
  query_set_id INTEGER NOT NULL,
  run_id INTEGER NOT NULL,
  run_created_at TEXT NOT NULL,
  evaluated_at INTEGER NOT NULL,
  PRIMARY KEY (alert, account, query_set_id)
);

CREATE TABLE alert_firings (
  alert TEXT NOT NULL,
  account TEXT NOT NULL,
  query_set_id INTEGER NOT NULL,
  run_id INTEGER NOT NULL,
  content TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (alert, account, query_set_id, run_id)
);
`,
};

export default migration;
