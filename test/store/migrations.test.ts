import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, openStore } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations/index.js';
import { ensureSnapshot } from '../../src/store/payloads.js';
import type { Store } from '../../src/store/sql.js';
import { testEngine } from '../helpers/test-store.js';
import { seedCatalog } from '../sync/helpers/seed-catalog.js';
import { type TempStore, tempStore } from '../sync/helpers/temp-store.js';

const onPostgres = testEngine() === 'postgres';
const CHILD = fileURLToPath(new URL('./fixtures/migrate-child.ts', import.meta.url));
const allVersions = migrations.map((m) => m.version).sort((a, b) => a - b);

/** The tables of the store, from the engine's own catalog. */
async function tableNames(store: Store): Promise<string[]> {
  const rows = await store.all<{ name: string }>(
    store.engine === 'postgres'
      ? `SELECT table_name AS name FROM information_schema.tables
         WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
      : `SELECT name FROM sqlite_master WHERE type = 'table'`,
  );
  return rows.map((row) => row.name);
}

async function appliedVersions(store: Store): Promise<number[]> {
  const rows = await store.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  return rows.map((row) => Number(row.version));
}

describe('openStore', () => {
  let temp: TempStore | undefined;
  afterEach(async () => {
    await temp?.cleanup();
    temp = undefined;
  });

  it('creates the schema, applies every migration once, and a reopen applies nothing again', async () => {
    temp = await tempStore();
    const versions = await appliedVersions(temp.store);
    expect(versions).toEqual(allVersions);
    const tables = await tableNames(temp.store);
    for (const table of [
      'accounts',
      'brands',
      'query_sets',
      'runs',
      'snapshots',
      'payloads',
      'request_log',
      'sync_runs',
      'deliveries',
      'metric_values',
    ]) {
      expect(tables).toContain(table);
    }
    await temp.store.run(
      `INSERT INTO accounts (name, base_url, budget_key) VALUES ('acme', 'http://x', 'k')`,
    );
    await temp.store.close();
    // Reopening applies nothing again and keeps the data.
    const again = await openStore(temp.target);
    try {
      expect(await appliedVersions(again)).toEqual(allVersions);
      expect(await again.all('SELECT name FROM accounts')).toEqual([{ name: 'acme' }]);
    } finally {
      await again.close();
    }
  });

  it.skipIf(onPostgres)(
    'uses WAL and foreign keys on SQLite, and waits for the write lock itself (pragmas of the SQLite file only)',
    async () => {
      temp = await tempStore();
      expect(temp.path).toMatch(/nested/);
      const pragma = async (name: string) =>
        Object.values((await temp!.store.get<Record<string, unknown>>(`PRAGMA ${name}`))!)[0];
      expect(await pragma('journal_mode')).toBe('wal');
      expect(await pragma('foreign_keys')).toBe(1);
      // The store waits for another process's lock without freezing the event loop
      // (test/store/sqlite-lock-wait.test.ts), so the driver's own wait is off.
      expect(await pragma('busy_timeout')).toBe(0);
    },
  );

  it('rolls a failing migration back whole and keeps the store at the previous version', async () => {
    temp = await tempStore('bare.sqlite', { migrations: [], deriveMetrics: false });
    const good = { version: 1, name: 'one', sql: 'CREATE TABLE a (x INTEGER);' };
    const bad = {
      version: 2,
      name: 'two',
      sql: 'CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);',
    };
    await expect(migrate(temp.store, [good, bad])).rejects.toThrow(/nowhere/);
    expect(await appliedVersions(temp.store)).toEqual([1]);
    const tables = await tableNames(temp.store);
    expect(tables).toContain('a');
    expect(tables).not.toContain('b');
  });

  it('refuses a store migrated by a newer reportd', async () => {
    temp = await tempStore('bare.sqlite', { migrations: [], deriveMetrics: false });
    await migrate(temp.store, [
      { version: 1, name: 'one', sql: 'SELECT 1;' },
      { version: 9, name: 'future', sql: 'SELECT 1;' },
    ]);
    await expect(migrate(temp.store, [{ version: 1, name: 'one', sql: 'SELECT 1;' }])).rejects.toThrow(
      /newer than this reportd/,
    );
    // …and openStore says so as its one-line error.
    await temp.store.close();
    await expect(
      openStore(temp.target, { migrations: [{ version: 1, name: 'one', sql: 'SELECT 1;' }] }),
    ).rejects.toThrow(/store schema version 9 is newer than this reportd knows \(1\)/);
  });

  it('lets four processes open the same new store at the same instant: each migration applied exactly once', async () => {
    // SQLite: the write lock and the store's wait for it; PostgreSQL: the advisory lock `migrate` takes. The
    // store starts empty (not even schema_migrations) so every child finds every migration to apply.
    temp = await tempStore('shared.sqlite', { migrations: [], deriveMetrics: false });
    await temp.store.exec('DROP TABLE schema_migrations');
    await temp.store.close();
    const startAt = Date.now() + 4000;
    const run = () =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', CHILD, temp!.path, String(startAt)], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => {
          stdout += chunk;
        });
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
        });
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    const results = await Promise.all([run(), run(), run(), run()]);
    for (const result of results) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('opened\n');
    }
    const store = await openStore(temp.target);
    try {
      expect(await appliedVersions(store)).toEqual(allVersions);
    } finally {
      await store.close();
    }
  }, 60_000);
});

describe.skipIf(onPostgres)(
  'migration 11: one outbox row per destination (upgrading a SQLite file of an older release)',
  () => {
    it('keeps existing deliveries (as email rows) and their recipients, and allows a row per destination', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'reportd-m11-'));
      try {
        const path = join(dir, 'reportd.sqlite');
        // A store as the previous release left it (migrations before 11), with one delivery and a recipient.
        const old = await openStore(path, { migrations: migrations.filter((m) => m.version < 11) });
        await old.run(
          `INSERT INTO deliveries (report, query_set_id, run_id, message_id, next_attempt_at, created_at, updated_at, state)
         VALUES ('weekly', 101, 7, '<m@x>', 0, 0, 0, 'sent')`,
        );
        await old.run(
          `INSERT INTO delivery_recipients (delivery_id, recipient, state, updated_at) VALUES (1, 'ceo@example.com', 'accepted', 0)`,
        );
        await old.close();

        const store = await openStore(path);
        expect(await store.all('SELECT id, report, destination, state, message_id FROM deliveries')).toEqual([
          { id: 1, report: 'weekly', destination: 'email', state: 'sent', message_id: '<m@x>' },
        ]);
        expect(await store.all('SELECT recipient, state FROM delivery_recipients')).toEqual([
          { recipient: 'ceo@example.com', state: 'accepted' },
        ]);
        const insert = (messageId: string) =>
          store.run(
            `INSERT INTO deliveries (report, destination, query_set_id, run_id, message_id, next_attempt_at, created_at, updated_at)
           VALUES ('weekly', 'marketing', 101, 7, ?, 0, 0, 0)`,
            [messageId],
          );
        // The same (report, set, run, generation) for another destination is a row of its own, once.
        await insert('msg_1');
        await expect(insert('msg_2')).rejects.toThrow(/UNIQUE/);
        // The recipients still belong to their delivery: the foreign key survived the rebuild.
        await store.run('DELETE FROM deliveries WHERE id = 1');
        expect(await store.get('SELECT COUNT(*) AS n FROM delivery_recipients')).toEqual({ n: 0 });
        await store.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);

describe.skipIf(onPostgres)(
  'migration 14: one notice row per destination (upgrading a SQLite file of an older release)',
  () => {
    it('carries every notice over as an email notice and allows one row per (incident, event, destination)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'reportd-m14-'));
      try {
        const path = join(dir, 'reportd.sqlite');
        // A store as the previous release left it (migrations before 14): an incident, its two notices.
        const old = await openStore(path, { migrations: migrations.filter((m) => m.version < 14) });
        await old.run(
          `INSERT INTO incidents (key, kind, detail, opened_at, cleared_at) VALUES ('sync', 'sync_failing', 'x', 1, 2)`,
        );
        const add = (kind: string, state: string, attempts: number, messageId: string) =>
          old.run(
            `INSERT INTO notices (incident_id, kind, recipients, state, attempts, message_id, next_attempt_at, created_at)
           VALUES (1, ?, '["ops@example.com"]', ?, ?, ?, 0, 0)`,
            [kind, state, attempts, messageId],
          );
        await add('opened', 'sent', 1, '<n1@x>');
        await add('cleared', 'pending', 2, '<n2@x>');
        await old.close();

        // Up to migration 21, which moves notices onto the delivery queue (notices-migration.test.ts).
        const store = await openStore(path, { migrations: migrations.filter((m) => m.version < 21) });
        expect(
          await store.all(
            'SELECT id, kind, destination, recipients, state, attempts, message_id FROM notices',
          ),
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
        const insert = (messageId: string) =>
          store.run(
            `INSERT INTO notices (incident_id, kind, destination, recipients, message_id, next_attempt_at, created_at)
           VALUES (1, 'opened', 'ops-webhook', '[]', ?, 0, 0)`,
            [messageId],
          );
        await insert('<n3@x>');
        await expect(insert('<n4@x>')).rejects.toThrow(/UNIQUE/);
        // The due-notice index came back with the rebuilt table.
        expect(await store.get(`SELECT name FROM sqlite_master WHERE name = 'notices_due'`)).toEqual({
          name: 'notices_due',
        });
        await store.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);

describe.skipIf(!onPostgres)('migration 19 (payloads as json on PostgreSQL)', () => {
  let temp: TempStore | undefined;
  afterEach(async () => {
    await temp?.cleanup();
    temp = undefined;
  });

  it('converts a store made with jsonb payloads, keeping them, so an answer quoting U+0000 stores', async () => {
    temp = await tempStore('bare.sqlite', {
      migrations: migrations.filter((m) => m.version < 19),
      deriveMetrics: false,
    });
    const { store } = temp;
    // The column as stores created before migration 19 have it.
    await store.exec('ALTER TABLE payloads ALTER COLUMN json TYPE JSONB USING json::jsonb');
    await seedCatalog(store, 1);
    const snapshot = await ensureSnapshot(store, { account: 'acme', querySetId: 101, runId: 1 }, 0);
    const insert = `INSERT INTO payloads (snapshot_id, endpoint_key, json, fetched_at) VALUES (?, ?, ?, 'x')`;
    await store.run(insert, [snapshot.id, 'life.kpi', '{"current":1}']);
    await expect(store.run(insert, [snapshot.id, 'nul', '"a\\u0000b"'])).rejects.toThrow(
      /unsupported Unicode escape/,
    );
    expect(
      await migrate(
        store,
        migrations.filter((m) => m.version <= 19),
      ),
    ).toEqual([19]);
    await store.run(insert, [snapshot.id, 'nul', '"a\\u0000b"']);
    const rows = await store.all<{ endpoint_key: string; json: string }>(
      'SELECT endpoint_key, json FROM payloads ORDER BY endpoint_key',
    );
    expect(rows.map((r) => [r.endpoint_key, JSON.parse(r.json)])).toEqual([
      ['life.kpi', { current: 1 }],
      ['nul', 'a\u0000b'],
    ]);
  });
});
