import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { ReportdError, UsageError } from '../errors/index.js';
import { backfillMetricRows } from './metric-values.js';
import { migrations as allMigrations, type Migration } from './migrations/index.js';
import { storeFaultHint } from './store-fault.js';

/**
 * The SQLite file that holds snapshots, the catalog, the request history and the delivery outbox.
 * Repositories (one file per table group) take a `Store` and run plain SQL on `db`.
 */
export interface Store {
  readonly db: Database.Database;
  /** Absolute path of the database file. */
  readonly path: string;
  close(): void;
}

/** Thrown when the database cannot be opened or migrated (unwritable folder, newer schema…). */
export class StoreError extends ReportdError {
  override name = 'StoreError' as const;
}

/**
 * Opens (creating it and its folder if needed) and migrates the store. WAL lets readers (`status`,
 * the renderer, the daemon's /readyz) work while a sync writes; synchronous=NORMAL is durable across
 * process crashes in WAL mode (only a power loss can drop the last commits, which the sync refetches);
 * busy_timeout makes a second process wait for the write lock instead of failing at once.
 */
export function openStore(
  path: string,
  options: {
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
  } = {},
): Store {
  const file = path === ':memory:' ? path : resolve(path);
  if (options.mustExist && file !== ':memory:' && !existsSync(file)) {
    throw new UsageError(`store ${file} does not exist (check store.path, or run \`reportd sync\` first)`);
  }
  let db: Database.Database;
  try {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    db = new Database(file);
  } catch (error) {
    throw new StoreError(`cannot open store ${file}: ${(error as Error).message}${hintOf(error, file)}`, {
      cause: error,
    });
  }
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, options.migrations ?? allMigrations);
  } catch (error) {
    db.close();
    if (error instanceof ReportdError) throw error;
    throw new StoreError(`cannot migrate store ${file}: ${(error as Error).message}${hintOf(error, file)}`, {
      cause: error,
    });
  }
  const store = storeOf(db, file);
  if (options.deriveMetrics !== false) {
    try {
      backfillMetricRows(store);
    } catch (error) {
      store.close();
      throw new StoreError(`cannot derive the metric rows of store ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  return store;
}

function storeOf(db: Database.Database, file: string): Store {
  let closed = false;
  return {
    db,
    path: file,
    close() {
      // Idempotent: the daemon's shutdown and a finally block may both close it.
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

/** ` (the disk is full; …)` for a fault of the machine or the file, else nothing. */
function hintOf(error: unknown, file: string): string {
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
 * Applies each pending migration in its own IMMEDIATE transaction together with its row in
 * schema_migrations, so a crash leaves the schema at a known version and two processes opening the
 * same file at once never apply one twice (the second waits for the lock, then sees the row).
 */
export function migrate(db: Database.Database, list: readonly Migration[]): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const sorted = [...list].sort((a, b) => a.version - b.version);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.version === sorted[i - 1]!.version) {
      throw new StoreError(`two migrations share version ${sorted[i]!.version}`);
    }
  }
  const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?');
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const newest = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  const known = sorted.at(-1)?.version ?? 0;
  if ((newest.v ?? 0) > known) {
    // A newer reportd migrated this file; running old code on it could corrupt data.
    throw new StoreError(
      `store schema version ${newest.v} is newer than this reportd knows (${known}); upgrade reportd`,
    );
  }
  const applied: number[] = [];
  for (const migration of sorted) {
    const apply = db.transaction(() => {
      if (isApplied.get(migration.version)) return false;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
      return true;
    });
    if (apply.immediate()) applied.push(migration.version);
  }
  return applied;
}

/** Runs `fn` in one write transaction (BEGIN IMMEDIATE, so it never fails half-way on a lock upgrade). */
export function inTransaction<T>(store: Store, fn: () => T): T {
  return store.db.transaction(fn).immediate();
}
