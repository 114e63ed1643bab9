import type { LeaseDialect } from './lease-dialect.js';

/**
 * PostgreSQL: candidates are read `FOR UPDATE SKIP LOCKED` (pg-boss's fetch), so of several daemons'
 * workers each takes a row of its own; a time in a CASE branch is cast, or the renewal of a lease
 * per state was refused ("lease_until is of type bigint but expression is of type text") and a send
 * that outlasted its lease was taken over and sent again.
 */
export const postgresLease: LeaseDialect = {
  lockCandidates: ' FOR UPDATE SKIP LOCKED',
  epochMs: 'CAST(? AS BIGINT)',
};
