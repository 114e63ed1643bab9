import type { Migration } from './migration.js';

/**
 * The daemons sharing the store. Each registers a row at start, moves `heartbeat_at` forward on a
 * timer and sets `stopped_at` on a clean stop; a row whose heartbeat is a few intervals old belongs
 * to a daemon that died. `id` is the name the daemon's claims carry (`host:pid:random`, see
 * queue/holder.ts), so a reader can say which instance holds which slot or delivery.
 */
const migration: Migration = {
  version: 16,
  name: 'instances',
  sql: `
CREATE TABLE instances (
  id TEXT PRIMARY KEY,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  version TEXT NOT NULL,
  roles TEXT NOT NULL,               -- comma-separated: scheduler, sync, worker, http
  started_at INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  stopped_at INTEGER
);
CREATE INDEX instances_heartbeat ON instances (heartbeat_at);
`,
};

export default migration;
