import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIncident } from '../../src/notify/incidents.js';
import { claimNextDelivery, markSending, markSent } from '../../src/outbox/deliveries.js';
import { enqueueDelivery } from '../../src/outbox/enqueue.js';
import { ensureRecipients } from '../../src/outbox/recipients.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { saveFiring, setAlertCursor } from '../../src/store/alerts.js';
import { openStore } from '../../src/store/db.js';
import { recordSkippedSlots } from '../../src/store/schedule-events.js';
import type { Store } from '../../src/store/sql.js';
import { type CliResult, runCli } from '../helpers/cli.js';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { testEngine } from '../helpers/test-store.js';

/**
 * `reportd migrate-store` end to end, with the built CLI: the sandbox synced into a SQLite file by
 * `reportd sync`, copied into a fresh PostgreSQL database, and the same report rendered (real
 * Chromium) from each store gives the same PDF text. PostgreSQL project only.
 */
const onPostgres = testEngine() === 'postgres';

/**
 * Tables a copy leaves behind on purpose (copy-store.ts says why): they belong to the processes of the
 * old store. Every other table of the schema must arrive, so the list of what is copied is read from
 * the source file's catalog, never written here: a table a migration adds (the delivery queue's, say)
 * is covered the day it exists, and the test fails until the copy carries it.
 */
const LEFT_BEHIND = new Set([
  'account_leases',
  'instances',
  'job_slots',
  'report_fingerprints',
  'schema_migrations',
]);

/** Every table of the SQLite store's schema except those left behind. */
async function schemaTables(store: Store): Promise<string[]> {
  const rows = await store.all<{ name: string }>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  );
  return rows.map((row) => row.name).filter((name) => !LEFT_BEHIND.has(name));
}

let sandbox: Sandbox;
let dir: string;
let sqliteFile: string;
let sqliteConfig: string;

function writeConfig(name: string, store: string): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `accounts:
  - name: acme
    base_url: ${sandbox.baseUrl}
    api_key: ${sandbox.apiKey}
    api_secret: ${sandbox.apiSecret}
    rate_limit: { requests: 2000, window_seconds: 1 }
store: ${store}
sync: { query_sets: [101, 102], backfill_runs: 2 }
log: { level: warn }
`,
  );
  return file;
}

const reportd = (config: string, ...args: string[]): Promise<CliResult> =>
  runCli([...args, '--config', config], { cwd: dir });

async function counts(store: Store, tables: readonly string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of tables) {
    out[table] = Number((await store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))?.n);
  }
  return out;
}

/** Renders set 101's newest run as PDF with `config` and returns the PDF's text. */
async function renderedText(config: string, out: string): Promise<string> {
  const result = await reportd(config, 'render', '--set', '101', '--format', 'pdf', '--out', out);
  expect(result.code, result.stderr).toBe(0);
  const pdfs = readdirSync(out).filter((name) => name.endsWith('.pdf'));
  expect(pdfs).toHaveLength(1);
  const text = execFileSync('pdftotext', ['-layout', join(out, pdfs[0]!), '-'], { encoding: 'utf8' });
  // The time it was generated is the clock's, not the store's: two renders may straddle a minute.
  return text.replace(/\d{2}\/\d{2}\/\d{4}, \d{2}:\d{2} [AP]M UTC/g, '(generated)');
}

beforeAll(async () => {
  if (!onPostgres) return;
  dir = mkdtempSync(join(tmpdir(), 'reportd-migrate-'));
  sandbox = await startSandbox({ rate: { requests: 2000, windowMs: 1000 } });
  sqliteFile = join(dir, 'data', 'reportd.sqlite');
  sqliteConfig = writeConfig('sqlite.yaml', `{ path: ${sqliteFile} }`);
  const sync = await reportd(sqliteConfig, 'sync', '--no-progress');
  expect(sync.code, sync.stderr).toBe(0);
  // Outbox history and scheduler state, as a daemon would have left them: a sent delivery with its
  // recipients, one still due, a skipped slot, an incident and its notice.
  const store = await openStore({ path: sqliteFile });
  try {
    const now = Date.UTC(2026, 0, 5, 8);
    const { delivery } = await enqueueDelivery(store, { report: 'weekly', querySetId: 101, runId: 1 }, now);
    await ensureRecipients(store, delivery.id, ['ceo@example.com', 'cfo@example.com'], now);
    const claim = await claimNextDelivery(store, {
      worker: 'w1',
      now,
      leaseMs: 60_000,
      maxAttempts: 8,
      id: delivery.id,
    });
    const fence = { id: delivery.id, token: claim!.delivery.token ?? '' };
    expect(await markSending(store, fence, now, 60_000)).toBe(true);
    expect(await markSent(store, fence, now, null)).toBe(true);
    await enqueueDelivery(store, { report: 'weekly', querySetId: 102, runId: 1 }, now);
    await recordSkippedSlots(store, {
      job: 'report:weekly',
      firstSlotAt: now - 86_400_000,
      at: now,
      detail: 'down',
    });
    await openIncident(store, {
      key: 'sync',
      kind: 'sync_failing',
      detail: 'x',
      at: now,
      recipients: ['ops@example.com'],
    });
    // The alerts' memory: where an alert stands for a set, and what fired for a run.
    await setAlertCursor(
      store,
      { alert: 'drop', account: 'acme', querySetId: 101 },
      { runId: 1, createdAt: '2026-01-05T08:00:00Z' },
      now,
    );
    await saveFiring(
      store,
      { alert: 'drop', account: 'acme', querySetId: 101, runId: 1 },
      { firings: [] },
      now,
    );
  } finally {
    await store.close();
  }
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!onPostgres)('reportd migrate-store (SQLite file → PostgreSQL)', () => {
  it('copies every table, then renders the same PDF text from PostgreSQL as from SQLite', async () => {
    const url = await freshDatabaseUrl();
    const pgConfig = writeConfig('postgres.yaml', `{ url: "${url}" }`);
    const result = await reportd(pgConfig, 'migrate-store', '--from', sqliteFile);
    expect(result.code, result.stderr).toBe(0);

    const source = await openStore({ path: sqliteFile }, { mustExist: true });
    const tables = await schemaTables(source);
    const before = await counts(source, tables);
    await source.close();
    expect(tables).toEqual(
      expect.arrayContaining(['deliveries', 'incidents', 'alert_cursors', 'alert_firings']),
    );
    expect(before.snapshots).toBe(4);
    expect(before.metric_values).toBeGreaterThan(1000);
    // Two report rows and the incident's notice, a row of the same queue (migration 21), with its recipient.
    expect(before.deliveries).toBe(3);
    expect(before.delivery_recipients).toBe(3);
    expect(before.incidents).toBe(1);
    expect(before.alert_cursors).toBe(1);
    expect(before.alert_firings).toBe(1);
    // It prints each table with the rows it copied.
    for (const [table, rows] of Object.entries(before)) {
      expect(result.stdout, table).toMatch(new RegExp(`^${table}\\s+${rows}$`, 'm'));
    }
    expect(result.stdout).toMatch(
      /^copied \d+ rows from .*reportd\.sqlite to postgres:\/\/postgres@127\.0\.0\.1:\d+\//m,
    );

    const target = await openStore(url);
    try {
      expect(await counts(target, tables)).toEqual(before);
      // Rows keep their ids and states: the sent delivery stays sent under its Message-ID.
      const outbox = 'SELECT id, state, message_id FROM deliveries ORDER BY id';
      const sourceAgain = await openStore({ path: sqliteFile }, { mustExist: true });
      try {
        expect(await target.all(outbox)).toEqual(await sourceAgain.all(outbox));
      } finally {
        await sourceAgain.close();
      }
      // New rows are numbered after the copied ones (two report rows, then the incident's notice).
      const { delivery } = await enqueueDelivery(
        target,
        { report: 'weekly', querySetId: 101, runId: 2 },
        Date.now(),
      );
      expect(delivery.id).toBe(4);
    } finally {
      await target.close();
    }

    const fromSqlite = await renderedText(sqliteConfig, join(dir, 'out-sqlite'));
    const fromPostgres = await renderedText(pgConfig, join(dir, 'out-postgres'));
    expect(fromSqlite).toContain('Northwind');
    expect(fromPostgres).toBe(fromSqlite);

    // The store lives on: a sync into PostgreSQL numbers its new rows after the copied ones.
    const sync = await reportd(pgConfig, 'sync', '--no-progress');
    expect(sync.code, sync.stderr).toBe(0);
    const after = await openStore(url);
    try {
      expect((await after.get<{ n: number }>('SELECT COUNT(*) AS n FROM sync_runs'))?.n).toBe(
        before.sync_runs! + 1,
      );
    } finally {
      await after.close();
    }

    // Copying again into the now full database is refused: one line, exit 2, nothing changed.
    const again = await reportd(pgConfig, 'migrate-store', '--from', sqliteFile);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr.trim().split('\n'), again.stderr).toHaveLength(1);
    expect(again.stderr).toMatch(/already holds data/);
  }, 180_000);

  it('refuses while the source outbox has a row being sent: exit 2, one line, the target left empty', async () => {
    // A copy of the synced file whose outbox has a delivery a worker is sending right now.
    const busyFile = join(dir, 'busy.sqlite');
    copyFileSync(sqliteFile, busyFile);
    const busy = await openStore({ path: busyFile });
    try {
      const now = Date.now();
      const { delivery } = await enqueueDelivery(busy, { report: 'weekly', querySetId: 101, runId: 2 }, now);
      const claimed = await claimNextDelivery(busy, {
        worker: 'w1',
        now,
        leaseMs: 600_000,
        maxAttempts: 8,
        id: delivery.id,
      });
      expect(claimed).toBeDefined();
      const fence = { id: delivery.id, token: claimed!.delivery.token ?? '' };
      expect(await markSending(busy, fence, now, 600_000)).toBe(true);
      expect(await busy.get('SELECT state FROM deliveries WHERE id = ?', [delivery.id])).toEqual({
        state: 'sending',
      });
    } finally {
      await busy.close();
    }

    const url = await freshDatabaseUrl();
    const pgConfig = writeConfig('postgres-busy.yaml', `{ url: "${url}" }`);
    const result = await reportd(pgConfig, 'migrate-store', '--from', busyFile);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
    expect(result.stderr).toMatch(/busy\.sqlite has 1 outbox row\(s\) being rendered or sent/);
    const target = await openStore(url);
    try {
      expect((await target.get<{ n: number }>('SELECT COUNT(*) AS n FROM snapshots'))?.n).toBe(0);
    } finally {
      await target.close();
    }
  }, 60_000);
});
