import type { Migration } from './migration.js';

/**
 * On PostgreSQL, a payload is kept as `json` (its text as stored, checked to be JSON) instead of
 * `jsonb`. jsonb cannot hold a string containing U+0000 (PostgreSQL's text type has no NUL), so a
 * run whose answer quoted one would be stored as failing on PostgreSQL while SQLite keeps it; nothing
 * queries inside payloads, so jsonb's indexable form bought nothing. Stores created from here on get
 * `json` at migration 1 (postgres-ddl.ts); this converts the ones created before. SQLite: nothing.
 */
const migration: Migration = {
  version: 19,
  name: 'payload-json-text',
  sql: '',
  postgres: 'ALTER TABLE payloads ALTER COLUMN json TYPE JSON USING json::text::json;',
};

export default migration;
