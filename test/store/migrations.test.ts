import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, openStore } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations/index.js';
import { tempStore } from '../sync/helpers/temp-store.js';

describe('openStore', () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  it('creates the parent folders, uses WAL and foreign keys, and applies every migration once', () => {
    const temp = tempStore();
    cleanup = temp.cleanup;
    const { db } = temp.store;
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
    expect(versions).toEqual(migrations.map((m) => m.version).sort((a, b) => a - b));
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all();
    for (const table of [
      'accounts',
      'brands',
      'query_sets',
      'runs',
      'snapshots',
      'payloads',
      'request_log',
      'sync_runs',
    ]) {
      expect(tables).toContain(table);
    }
    temp.store.close();
    // Reopening applies nothing again and keeps the data.
    const again = openStore(temp.path);
    expect(again.db.prepare('SELECT COUNT(*) FROM schema_migrations').pluck().get()).toBe(versions.length);
    again.close();
  });

  it('rolls a failing migration back whole and keeps the store at the previous version', () => {
    const db = new Database(':memory:');
    const good = { version: 1, name: 'one', sql: 'CREATE TABLE a (x INTEGER);' };
    const bad = {
      version: 2,
      name: 'two',
      sql: 'CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);',
    };
    expect(() => migrate(db, [good, bad])).toThrow(/nowhere/);
    expect(db.prepare('SELECT version FROM schema_migrations').pluck().all()).toEqual([1]);
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'b'`).get()).toBeUndefined();
    db.close();
  });

  it('refuses a store migrated by a newer reportd', () => {
    const db = new Database(':memory:');
    migrate(db, [
      { version: 1, name: 'one', sql: 'SELECT 1;' },
      { version: 9, name: 'future', sql: 'SELECT 1;' },
    ]);
    expect(() => migrate(db, [{ version: 1, name: 'one', sql: 'SELECT 1;' }])).toThrow(
      /newer than this reportd/,
    );
    db.close();
  });
});
