import type { Migration } from './migration.js';

/**
 * Fencing tokens (queue/fence.ts). Every claim of an outbox row or a notice writes a new random
 * `token`, and every later write of the worker that claimed it says `WHERE id = ? AND token = ?`: a
 * worker paused past its lease (SIGSTOP, a suspended VM) whose row another worker claimed meanwhile
 * changes nothing when it wakes, instead of putting the row back to pending under the new owner.
 * Rows claimed before this migration have no token; their claim lapses and the next one sets it.
 */
const migration: Migration = {
  version: 20,
  name: 'fencing-tokens',
  sql: `
ALTER TABLE deliveries ADD COLUMN token TEXT;
ALTER TABLE notices ADD COLUMN token TEXT;
`,
};

export default migration;
