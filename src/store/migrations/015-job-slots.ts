import type { Migration } from './migration.js';

/**
 * Cron slots claimed once across daemons. Before a scheduled slot runs, the scheduler of one daemon
 * inserts (job, slot_at); the primary key makes every other daemon's insert of the same slot a no-op,
 * so the sync and each report run once per slot however many daemons share the store. The claimer
 * renews `lease_until` while the job runs and sets `finished_at` and `outcome` at the end; a claim
 * whose lease lapsed unfinished (its daemon was kill -9'd) may be taken over (`takeovers` counts it).
 *
 * `slot_at` is the cron instant, or for a start-up catch-up the newest slot missed, so two daemons
 * starting together decide the catch-up once. Times are epoch ms like the rest of the store.
 */
const migration: Migration = {
  version: 15,
  name: 'job-slots',
  sql: `
CREATE TABLE job_slots (
  job TEXT NOT NULL,
  slot_at INTEGER NOT NULL,
  reason TEXT NOT NULL CHECK (reason IN ('schedule', 'catch-up', 'takeover')),
  instance TEXT NOT NULL,            -- instances.id of the daemon that holds (or held) the claim
  claimed_at INTEGER NOT NULL,
  lease_until INTEGER NOT NULL,
  finished_at INTEGER,
  outcome TEXT CHECK (outcome IN ('ok', 'failed', 'skipped', 'interrupted')),
  error TEXT,
  takeovers INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (job, slot_at)
);
CREATE INDEX job_slots_claimed ON job_slots (claimed_at);
`,
};

export default migration;
