import type { Migration } from './migration.js';

/**
 * A record of every file delivered (issue 44): which file, its SHA-256 and size, where it went (the
 * channel and its bucket, host or folder, the object name), for which reader (the row's recipient)
 * and when, so "what exactly did this reader get on this date" has an answer after the fact. One row
 * per (delivery, reader, object): a retried delivery records its files once.
 */
const migration: Migration = {
  version: 44,
  name: 'delivered-files',
  sql: `
CREATE TABLE delivered_files (
  id INTEGER PRIMARY KEY,
  delivery_id INTEGER NOT NULL,
  report TEXT NOT NULL,
  reader TEXT NOT NULL,
  destination TEXT NOT NULL,
  location TEXT NOT NULL,
  file TEXT NOT NULL,
  object TEXT NOT NULL,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  delivered_at INTEGER NOT NULL,
  UNIQUE (delivery_id, reader, object)
);
CREATE INDEX delivered_files_by_reader ON delivered_files (reader, delivered_at);
`,
};

export default migration;
