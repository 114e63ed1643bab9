import type { Migration } from './migration.js';

/**
 * The metrics layer: every number of every complete snapshot as one tidy row (`metric_values`, whose
 * column names are a public contract documented in the README), the text beside them (error register
 * claims, summaries, sources, engine and intent labels), and a marker per derived snapshot.
 *
 * Rows are derived in the transaction that completes a snapshot, or at open for snapshots stored
 * before this migration (store/metric-values.ts); the payloads stay the source of truth, so a later
 * mapping version can derive them again. Labels (brand, set, run) are copied into each row so the
 * table reads alone in any BI tool, and snapshots never change once complete.
 */
const migration: Migration = {
  version: 6,
  name: 'metric-values',
  sql: `
CREATE TABLE metric_values (
  snapshot_id INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,
  account TEXT NOT NULL,
  brand_id INTEGER,
  brand TEXT,
  query_set_id INTEGER NOT NULL,
  query_set TEXT NOT NULL,
  run_id INTEGER NOT NULL,
  run TEXT NOT NULL,
  run_created_at TEXT NOT NULL,      -- ISO 8601, as the API published it
  endpoint TEXT NOT NULL,            -- catalog key, e.g. presence.gross
  field TEXT NOT NULL,               -- e.g. current, delta, history, stance.rec
  dimension TEXT NOT NULL DEFAULT '',
  dimension_id TEXT,
  dimension_label TEXT,
  value REAL NOT NULL,               -- exactly as the API sent it
  unit TEXT NOT NULL CHECK (unit IN ('percent', 'fraction', 'count', 'ratio', 'score', 'unknown'))
);
CREATE INDEX metric_values_by_snapshot ON metric_values (snapshot_id);

-- One row per derived snapshot: backfill skips these, and a newer mapping_version derives again.
CREATE TABLE metric_derivations (
  snapshot_id INTEGER PRIMARY KEY REFERENCES snapshots(id) ON DELETE CASCADE,
  mapping_version INTEGER NOT NULL,
  rows INTEGER NOT NULL,
  derived_at TEXT NOT NULL
);

CREATE TABLE metric_error_register (
  snapshot_id INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,
  error_id TEXT NOT NULL,
  title TEXT NOT NULL,
  correct TEXT NOT NULL,
  note TEXT,
  engine_id INTEGER,
  engine TEXT,
  claim TEXT
);
CREATE INDEX metric_error_register_by_snapshot ON metric_error_register (snapshot_id);

CREATE TABLE metric_summaries (
  snapshot_id INTEGER PRIMARY KEY REFERENCES snapshots(id) ON DELETE CASCADE,
  content TEXT NOT NULL
);

CREATE TABLE metric_sources (
  snapshot_id INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,
  source TEXT NOT NULL,
  control TEXT NOT NULL,
  source_type TEXT NOT NULL
);
CREATE INDEX metric_sources_by_snapshot ON metric_sources (snapshot_id);

CREATE TABLE metric_dimensions (
  snapshot_id INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,
  dimension TEXT NOT NULL CHECK (dimension IN ('engine', 'intent')),
  dimension_id TEXT NOT NULL,
  dimension_label TEXT NOT NULL,
  stage TEXT,
  PRIMARY KEY (snapshot_id, dimension, dimension_id)
);

-- For BI tools (sqlite3, DuckDB's sqlite scanner, Power BI, Metabase): the tidy rows without the
-- internal snapshot id, plus the value on one 0..100 scale wherever the unit is a share.
CREATE VIEW v_metric_values AS
SELECT account, brand_id, brand, query_set_id, query_set, run_id, run, run_created_at,
       endpoint, field, dimension, dimension_id, dimension_label, value, unit,
       CASE unit WHEN 'fraction' THEN value * 100 WHEN 'percent' THEN value END AS value_pct
FROM metric_values;

-- The error register's claims with their run, for "new errors per run" and the like.
CREATE VIEW v_error_register AS
SELECT s.account, s.query_set_id, s.run_id, r.display_name AS run, r.created_at AS run_created_at,
       e.error_id, e.title, e.correct, e.note, e.engine_id, e.engine, e.claim
FROM metric_error_register e
JOIN snapshots s ON s.id = e.snapshot_id
JOIN runs r ON r.account = s.account AND r.query_set_id = s.query_set_id AND r.id = s.run_id;
`,
};

export default migration;
