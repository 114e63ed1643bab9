import type { LeaseDialect } from './lease-dialect.js';

/**
 * SQLite: a write transaction holds the whole file (BEGIN IMMEDIATE), so the read of candidates needs
 * no row lock, and a parameter takes the type of its value.
 */
export const sqliteLease: LeaseDialect = {
  lockCandidates: '',
  epochMs: '?',
};
