import type { Migration } from './migration.js';

/**
 * Settled snapshots and account leases.
 *
 * `snapshots.settled_at`: when a snapshot whose failing payloads used up `max_payload_retries` became
 * reportable anyway (state stays `partial`: the CHECK of migration 001 cannot be widened without
 * rebuilding the table that payloads cascade from). Readers see it as state `settled`.
 *
 * `account_leases`: which process is syncing an account, so two processes on one store never fetch
 * the same payloads. A lease is held while `expires_at` (epoch ms) is ahead; the holder renews it
 * while it works, and another process takes it over once it lapsed or its holder's pid is gone.
 */
const migration: Migration = {
  version: 5,
  name: 'settled-and-leases',
  sql: `
ALTER TABLE snapshots ADD COLUMN settled_at TEXT;

CREATE TABLE account_leases (
  account TEXT PRIMARY KEY,
  holder TEXT NOT NULL,              -- unique per process and pass
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  acquired_at INTEGER NOT NULL,      -- epoch ms
  expires_at INTEGER NOT NULL        -- epoch ms; renewed by the holder's heartbeat
);
`,
};

export default migration;
