import type { Migration } from './migration.js';

/**
 * What the scheduler decided not to do, kept for `reportd history` and the status page: a slot missed
 * while the daemon was down and older than the job's `max_delay` is skipped, not sent late, and ops
 * must be able to see that it was skipped on purpose. `first_slot_at` is the oldest slot skipped,
 * `at` when the daemon decided (its start-up); times are epoch ms like the rest of the store.
 */
const migration: Migration = {
  version: 8,
  name: 'schedule-events',
  sql: `
CREATE TABLE schedule_events (
  id INTEGER PRIMARY KEY,
  job TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('skipped')),
  first_slot_at INTEGER NOT NULL,
  at INTEGER NOT NULL,
  detail TEXT
);
CREATE INDEX schedule_events_job ON schedule_events (job, at);
`,
};

export default migration;
