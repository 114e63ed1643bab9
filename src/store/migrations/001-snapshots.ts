import type { Migration } from './migration.js';

/**
 * The catalog (accounts → brands → query sets → runs), immutable snapshots with their payloads, the
 * rate budget's request history and the log of sync passes.
 *
 * Times people read (snapshot, payload, sync pass) are ISO 8601 UTC text; request_log uses epoch
 * milliseconds because the budget does arithmetic on them on every request.
 * Query sets and runs are keyed by account as well: ids are the API's, and one store may hold several
 * companies (one per account).
 */
const migration: Migration = {
  version: 1,
  name: 'snapshots',
  sql: `
CREATE TABLE accounts (
  name TEXT PRIMARY KEY,
  base_url TEXT NOT NULL,
  budget_key TEXT NOT NULL,
  brands_fetched_at TEXT,            -- catalog TTL for /brands/list
  last_sync_at TEXT,
  last_error TEXT,                   -- the error that stopped the last pass of this account, if any
  last_error_at TEXT
);

CREATE TABLE brands (
  account TEXT NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
  id INTEGER NOT NULL,
  name TEXT NOT NULL,
  sets_fetched_at TEXT,              -- catalog TTL for /sets/brands/{id}/list
  PRIMARY KEY (account, id)
);

CREATE TABLE query_sets (
  account TEXT NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
  id INTEGER NOT NULL,
  brand_id INTEGER,                  -- null for a set named in sync.query_sets but not in any brand list
  name TEXT NOT NULL,
  created_at TEXT,
  details TEXT,                      -- JSON of /sets/{id}/details
  engines TEXT,                      -- JSON array, copied out of details for quick reads
  details_fetched_at TEXT,           -- catalog TTL for details
  state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'gone')),
  gone_at TEXT,
  last_error TEXT,
  PRIMARY KEY (account, id)
);

CREATE TABLE runs (
  account TEXT NOT NULL,
  query_set_id INTEGER NOT NULL,
  id INTEGER NOT NULL,
  display_name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  first_seen_at TEXT NOT NULL,
  PRIMARY KEY (account, query_set_id, id),
  FOREIGN KEY (account, query_set_id) REFERENCES query_sets(account, id) ON DELETE CASCADE
);

CREATE TABLE snapshots (
  id INTEGER PRIMARY KEY,
  account TEXT NOT NULL,
  query_set_id INTEGER NOT NULL,
  run_id INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'partial', 'complete')),
  started_at TEXT NOT NULL,
  completed_at TEXT,
  UNIQUE (account, query_set_id, run_id),
  FOREIGN KEY (account, query_set_id, run_id) REFERENCES runs(account, query_set_id, id)
);
CREATE INDEX snapshots_by_set ON snapshots (query_set_id, state);

CREATE TABLE payloads (
  snapshot_id INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,
  endpoint_key TEXT NOT NULL,
  json TEXT NOT NULL,                -- the server's JSON as received, valid or not
  fetched_at TEXT NOT NULL,
  validation_error TEXT,             -- null when the payload matched its schema
  attempts INTEGER NOT NULL DEFAULT 1,
  UNIQUE (snapshot_id, endpoint_key)
);

CREATE TABLE request_log (
  budget_key TEXT NOT NULL,
  started_at INTEGER NOT NULL        -- epoch ms
);
CREATE INDEX request_log_by_key ON request_log (budget_key, started_at);

CREATE TABLE sync_runs (
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  outcome TEXT NOT NULL DEFAULT 'running'
    CHECK (outcome IN ('running', 'ok', 'incomplete', 'failed', 'aborted')),
  requests INTEGER NOT NULL DEFAULT 0,
  metric_requests INTEGER NOT NULL DEFAULT 0,
  snapshots_completed INTEGER NOT NULL DEFAULT 0,
  error TEXT
);
`,
};

export default migration;
