import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { ReportdError, StoreError, UsageError } from '../errors/index.js';
import { registerSecret } from '../secrets.js';
import { backfillMetricRows } from './metric-values.js';
import { migrations as allMigrations, type Migration, sqlOf } from './migrations/index.js';
import type { Store } from './sql.js';
import { openSqliteDatabase } from './sqlite-addon.js';
import { sqliteStore } from './sqlite-store.js';
import { storeFaultHint } from './store-fault.js';

/** Where the store lives: a SQLite file (the embedded default) or a PostgreSQL database. */
export type StoreTarget = { path: string } | { url: string };

export interface OpenStoreOptions {
  migrations?: readonly Migration[];
  /**
   * For commands that only read (`render`, `status`, `history`): a missing file is a mistyped
   * `store.path` or a store never synced, said as such, instead of an empty store created there.
   */
  mustExist?: boolean;
  /**
   * Derive the metric rows of complete snapshots that have none (stored before the metrics layer,
   * or by an older mapping) right after migrating. Default true; tests of the backfill turn it off.
   */
  deriveMetrics?: boolean;
  /** PostgreSQL: most connections this process opens at once (default 10). */
  poolSize?: number;
  /**
   * PostgreSQL: an idle pooled connection was closed by the server (a restart, 57P01). The pool
   * opens a new one at the next query; the daemon logs one warning per outage.
   */
  onConnectionError?: (error: Error) => void;
}

/** `postgres://` and `postgresql://` URLs name a PostgreSQL database; anything else is a file path. */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/**
 * Opens and migrates the store, then derives any metric rows it lacks. A string is a file path or a
 * `postgres://` URL.
 */
export async function openStore(
  target: StoreTarget | string,
  options: OpenStoreOptions = {},
): Promise<Store> {
  const where: StoreTarget =
    typeof target !== 'string' ? target : isPostgresUrl(target) ? { url: target } : { path: target };
  const store = 'url' in where ? await openPostgres(where.url, options) : openSqlite(where.path, options);
  try {
    await migrate(store, options.migrations ?? allMigrations);
  } catch (error) {
    await store.close().catch(() => {});
    if (error instanceof ReportdError) throw error;
    throw new StoreError(
      `cannot migrate store ${store.location}: ${(error as Error).message}${hintOf(error, store.location)}`,
      { cause: error },
    );
  }
  if (options.deriveMetrics !== false) {
    try {
      await backfillMetricRows(store);
    } catch (error) {
      await store.close().catch(() => {});
      throw new StoreError(
        `cannot derive the metric rows of store ${store.location}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  return store;
}

/**
 * WAL lets readers (`status`, the renderer, the daemon's /readyz) work while a sync writes;
 * synchronous=NORMAL is durable across process crashes in WAL mode (only a power loss can drop the
 * last commits, which the sync refetches); a second process waits up to 5 s for the write lock
 * instead of failing at once (asynchronously: sqlite-store.ts).
 */
function openSqlite(path: string, options: OpenStoreOptions): Store {
  const file = path === ':memory:' ? path : resolve(path);
  if (options.mustExist && file !== ':memory:' && !existsSync(file)) {
    throw new UsageError(`store ${file} does not exist (check store.path, or run \`reportd sync\` first)`);
  }
  let db: Database.Database;
  try {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    db = openSqliteDatabase(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // From here on the store waits for the write lock itself, without freezing the event loop
    // (sqlite-store.ts, `waitingForLock`); the pragmas above may still wait inside the driver.
    db.pragma('busy_timeout = 0');
  } catch (error) {
    throw new StoreError(`cannot open store ${file}: ${(error as Error).message}${hintOf(error, file)}`, {
      cause: error,
    });
  }
  return sqliteStore(db, file);
}

/**
 * The URL's password is registered as a secret before anything can print it; messages name the
 * database as `postgres://user@host:port/db`. A server that does not answer is one line naming host
 * and port, found here rather than at the first query of a sync.
 */
async function openPostgres(url: string, options: OpenStoreOptions): Promise<Store> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError('store.url is not a valid postgres:// URL');
  }
  if (parsed.password) registerSecret(decodeURIComponent(parsed.password));
  const host = parsed.hostname || 'localhost';
  const port = parsed.port || '5432';
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || parsed.username || 'postgres';
  const location = `postgres://${parsed.username ? `${decodeURIComponent(parsed.username)}@` : ''}${host}:${port}/${database}`;
  // node-postgres (and undici under it) is loaded only for a PostgreSQL store: evaluating it cost
  // every command on a SQLite store about 80 ms of CPU.
  const { postgresPool, postgresStore } = await import('./postgres-store.js');
  const pool = postgresPool(url, { max: options.poolSize, onConnectionError: options.onConnectionError });
  const store = postgresStore(pool, location);
  try {
    await store.get('SELECT 1 AS ok');
  } catch (error) {
    await store.close().catch(() => {});
    throw new StoreError(
      `cannot reach PostgreSQL store at ${host}:${port} (database ${database}): ${reasonOf(error)}`,
      {
        cause: error,
      },
    );
  }
  return store;
}

/** A driver error in a few words: the code names refused connections and unknown hosts. */
function reasonOf(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'unknown host';
  if (code === 'ETIMEDOUT') return 'timed out';
  if (code === '28P01' || code === '28000')
    return 'authentication failed (check the user and password in store.url)';
  if (code === '3D000') return 'the database does not exist';
  const message = (error as Error).message ?? String(error);
  return message.split('\n')[0]!;
}

/** ` (the disk is full; …)` for a fault of the machine or the file, else nothing. */
function hintOf(error: unknown, file: string): string {
  if (isPostgresUrl(file)) return '';
  // SQLite says only "unable to open" when WAL cannot create its -shm file beside a read-only store.
  if ((error as { code?: unknown }).code === 'SQLITE_CANTOPEN' && !writable(dirname(file))) {
    return ` (${storeFaultHint({ code: 'SQLITE_READONLY' })}: ${dirname(file)} is not writable)`;
  }
  const hint = storeFaultHint(error);
  return hint ? ` (${hint})` : '';
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Applies each pending migration in its own write transaction together with its row in
 * schema_migrations, so a crash leaves the schema at a known version and two processes opening the
 * same store at once never apply one twice: the second waits (SQLite's write lock, PostgreSQL's
 * advisory lock), then sees the row.
 */
export async function migrate(store: Store, list: readonly Migration[]): Promise<number[]> {
  const lock = { lock: 'reportd:migrations' };
  const sorted = [...list].sort((a, b) => a.version - b.version);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.version === sorted[i - 1]!.version) {
      throw new StoreError(`two migrations share version ${sorted[i]!.version}`);
    }
  }
  // The common case, a store already at this version, costs one read and no write lock: every
  // command opens the store, and most only read it.
  const recorded = await appliedVersions(store);
  const done = recorded ?? new Set<number>();
  const known = sorted.at(-1)?.version ?? 0;
  const newest = Math.max(0, ...done);
  if (newest > known) {
    // A newer reportd migrated this store; running old code on it could corrupt data.
    throw new StoreError(
      `store schema version ${newest} is newer than this reportd knows (${known}); upgrade reportd`,
    );
  }
  if (recorded && sorted.every((migration) => done.has(migration.version))) return [];
  await store.transaction(
    () =>
      store.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at TEXT NOT NULL
      )`),
    lock,
  );
  const applied: number[] = [];
  for (const migration of sorted) {
    const done = await store.transaction(async () => {
      if (await store.get('SELECT 1 AS one FROM schema_migrations WHERE version = ?', [migration.version])) {
        return false;
      }
      await store.exec(sqlOf(migration, store.engine));
      await store.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
        migration.version,
        migration.name,
        new Date().toISOString(),
      ]);
      return true;
    }, lock);
    if (done) applied.push(migration.version);
  }
  return applied;
}

/** Versions recorded in schema_migrations; undefined when the table does not exist yet (a new store). */
async function appliedVersions(store: Store): Promise<Set<number> | undefined> {
  const exists = await store.get(
    store.engine === 'postgres'
      ? `SELECT 1 AS found FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'schema_migrations'`
      : `SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`,
  );
  if (!exists) return undefined;
  const rows = await store.all<{ version: number }>('SELECT version FROM schema_migrations');
  return new Set(rows.map((row) => Number(row.version)));
}
