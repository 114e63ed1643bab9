import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

describe('migration 11: one outbox row per destination', () => {
  it('keeps existing deliveries (as email rows) and their recipients, and allows a row per destination', () => {
    const dir = mkdtempSync(join(tmpdir(), 'reportd-m11-'));
    try {
      const path = join(dir, 'reportd.sqlite');
      // A store as the previous release left it (migrations before 11), with one delivery and a recipient.
      const old = openStore(path, { migrations: migrations.filter((m) => m.version < 11) });
      old.db
        .prepare(
          `INSERT INTO deliveries (report, query_set_id, run_id, message_id, next_attempt_at, created_at, updated_at, state)
           VALUES ('weekly', 101, 7, '<m@x>', 0, 0, 0, 'sent')`,
        )
        .run();
      old.db
        .prepare(
          `INSERT INTO delivery_recipients (delivery_id, recipient, state, updated_at) VALUES (1, 'ceo@example.com', 'accepted', 0)`,
        )
        .run();
      old.close();

      const store = openStore(path);
      const { db } = store;
      expect(db.prepare('SELECT id, report, destination, state, message_id FROM deliveries').all()).toEqual([
        { id: 1, report: 'weekly', destination: 'email', state: 'sent', message_id: '<m@x>' },
      ]);
      expect(db.prepare('SELECT recipient, state FROM delivery_recipients').all()).toEqual([
        { recipient: 'ceo@example.com', state: 'accepted' },
      ]);
      const insert = db.prepare(
        `INSERT INTO deliveries (report, destination, query_set_id, run_id, message_id, next_attempt_at, created_at, updated_at)
         VALUES ('weekly', 'marketing', 101, 7, ?, 0, 0, 0)`,
      );
      // The same (report, set, run, generation) for another destination is a row of its own, once.
      insert.run('msg_1');
      expect(() => insert.run('msg_2')).toThrow(/UNIQUE/);
      // The recipients still belong to their delivery: the foreign key survived the rebuild.
      db.prepare('DELETE FROM deliveries WHERE id = 1').run();
      expect(db.prepare('SELECT COUNT(*) FROM delivery_recipients').pluck().get()).toBe(0);
      store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('migration 14: one notice row per destination', () => {
  it('carries every notice over as an email notice and allows one row per (incident, event, destination)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'reportd-m14-'));
    try {
      const path = join(dir, 'reportd.sqlite');
      // A store as the previous release left it (migrations before 14): an incident, its two notices.
      const old = openStore(path, { migrations: migrations.filter((m) => m.version < 14) });
      old.db
        .prepare(
          `INSERT INTO incidents (key, kind, detail, opened_at, cleared_at) VALUES ('sync', 'sync_failing', 'x', 1, 2)`,
        )
        .run();
      const add = old.db.prepare(
        `INSERT INTO notices (incident_id, kind, recipients, state, attempts, message_id, next_attempt_at, created_at)
         VALUES (1, ?, '["ops@example.com"]', ?, ?, ?, 0, 0)`,
      );
      add.run('opened', 'sent', 1, '<n1@x>');
      add.run('cleared', 'pending', 2, '<n2@x>');
      old.close();

      const store = openStore(path);
      const { db } = store;
      expect(
        db
          .prepare('SELECT id, kind, destination, recipients, state, attempts, message_id FROM notices')
          .all(),
      ).toEqual([
        {
          id: 1,
          kind: 'opened',
          destination: 'email',
          recipients: '["ops@example.com"]',
          state: 'sent',
          attempts: 1,
          message_id: '<n1@x>',
        },
        {
          id: 2,
          kind: 'cleared',
          destination: 'email',
          recipients: '["ops@example.com"]',
          state: 'pending',
          attempts: 2,
          message_id: '<n2@x>',
        },
      ]);
      const insert = db.prepare(
        `INSERT INTO notices (incident_id, kind, destination, recipients, message_id, next_attempt_at, created_at)
         VALUES (1, 'opened', 'ops-webhook', '[]', ?, 0, 0)`,
      );
      insert.run('<n3@x>');
      expect(() => insert.run('<n4@x>')).toThrow(/UNIQUE/);
      // The due-notice index came back with the rebuilt table.
      expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'notices_due'`).pluck().get()).toBe(
        'notices_due',
      );
      store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
