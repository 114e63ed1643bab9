import type BetterSqlite3 from 'better-sqlite3';
import type { RequestHistory } from '../api/budget.js';
import type { Store } from './db.js';

type Database = Store['db'];
type Statement = BetterSqlite3.Statement<unknown[]>;

interface Statements {
  prune: Statement;
  recent: Statement;
  others: Statement;
  lastRow: Statement;
  insert: Statement;
  finish: Statement;
}

const cache = new WeakMap<Database, Statements>();

/**
 * Statements prepared once per open database: `record` and `finish` run twice per API request, and
 * better-sqlite3 compiles a statement at every `prepare`.
 */
function statementsFor(db: Database): Statements {
  let prepared = cache.get(db);
  if (!prepared) {
    prepared = {
      prune: db.prepare(
        'DELETE FROM request_log WHERE budget_key = ? AND COALESCE(ended_at, started_at) < ?',
      ),
      recent: db
        .prepare(
          `SELECT CASE WHEN ended_at IS NOT NULL THEN ended_at ELSE max(?, started_at) END AS at
           FROM request_log WHERE budget_key = ? AND COALESCE(ended_at, started_at) >= ? ORDER BY at`,
        )
        .pluck(),
      others: db.prepare(
        `SELECT rowid AS row, CASE WHEN ended_at IS NOT NULL THEN ended_at ELSE max(?, started_at) END AS at
         FROM request_log WHERE budget_key = ? AND rowid > ? AND COALESCE(ended_at, started_at) >= ?`,
      ),
      lastRow: db.prepare('SELECT COALESCE(MAX(rowid), 0) FROM request_log').pluck(),
      insert: db.prepare('INSERT INTO request_log (budget_key, started_at) VALUES (?, ?)'),
      finish: db.prepare('UPDATE request_log SET ended_at = ? WHERE rowid = ?'),
    };
    cache.set(db, prepared);
  }
  return prepared;
}

/** What `record` hands the budget to pass back to `finish`. */
interface LoggedRequest {
  store: Store;
  rowid: number;
}

/**
 * The rate budget's memory of when requests started and ended, in SQLite, so a restarted process
 * knows what the server still counts in its window and does not burst past it (-145 would cost a
 * whole window).
 *
 * The store is looked up on every call rather than held: a process-wide budget outlives one pass,
 * and the daemon (or a test) may close and reopen the store between passes.
 * Old rows are pruned as the budget reads and every few hundred writes, keeping the table window-sized.
 */
export class SqliteRequestHistory implements RequestHistory {
  private readonly storeOf: () => Store;
  private readonly retainMs: number;
  private writes = 0;
  /**
   * Per database: the newest row that existed when the budget loaded its window (`recent`), and the
   * rows this history recorded since. Every other newer row is another process's request.
   */
  private readonly seen = new WeakMap<Database, { after: number; own: Set<number> }>();

  private seenIn(db: Database): { after: number; own: Set<number> } {
    let seen = this.seen.get(db);
    if (!seen) {
      seen = { after: statementsFor(db).lastRow.get() as number, own: new Set() };
      this.seen.set(db, seen);
    }
    return seen;
  }

  /** `retainMs`: how long a row may matter (the longest window of any budget using this history). */
  constructor(store: Store | (() => Store), options: { retainMs?: number } = {}) {
    this.storeOf = typeof store === 'function' ? store : () => store;
    this.retainMs = options.retainMs ?? 3_600_000;
  }

  /**
   * When each request still counted since `since` counts from: its end, as the live budget counts.
   * A request that started inside the window and never ended (the process died during it, or another
   * process has it in flight) reached the server at some unknown time up to now: it counts from `now`.
   * One that started before the window and never ended arrived before it too, and no longer counts.
   */
  recent(budgetKey: string, since: number, now: number = since): number[] {
    const db = this.storeOf().db;
    const statements = statementsFor(db);
    statements.prune.run(budgetKey, since);
    const times = statements.recent.all(now, budgetKey, since) as number[];
    this.seenIn(db);
    return times;
  }

  /**
   * Requests other processes (another `reportd sync`, a daemon) recorded on this store since the
   * budget loaded its window, timed as `recent` times them: read before every grant, so processes
   * sharing a store share the key's limit.
   */
  others(budgetKey: string, since: number, now: number): number[] {
    const db = this.storeOf().db;
    const seen = this.seenIn(db);
    const rows = statementsFor(db).others.all(now, budgetKey, seen.after, since) as {
      row: number;
      at: number;
    }[];
    return rows.filter((row) => !seen.own.has(row.row)).map((row) => row.at);
  }

  /** The store's write lock (BEGIN IMMEDIATE) around `fn`: other processes wait for it (busy_timeout). */
  exclusive<T>(fn: () => T): T {
    return this.storeOf().db.transaction(fn).immediate();
  }

  /** Returns the row to `finish()`, with its store: the budget may move to another store meanwhile. */
  record(budgetKey: string, at: number): LoggedRequest {
    const store = this.storeOf();
    const statements = statementsFor(store.db);
    const { lastInsertRowid } = statements.insert.run(budgetKey, at);
    const rowid = Number(lastInsertRowid);
    const own = this.seenIn(store.db).own;
    own.add(rowid);
    if (++this.writes % 500 === 0) {
      statements.prune.run(budgetKey, at - this.retainMs);
      // Rows older than the window are never read again: forget them here too.
      for (const id of own) if (own.size > 10_000 && id < rowid - 10_000) own.delete(id);
    }
    return { store, rowid };
  }

  finish(row: unknown, at: number): void {
    const logged = row as LoggedRequest | undefined;
    if (!logged?.store) return;
    statementsFor(logged.store.db).finish.run(at, logged.rowid);
  }
}

/**
 * Requests of `budgetKey` that still count after `since` (read-only, for `status`), as `recent`
 * counts them: from their end, or from their start while no end is recorded.
 */
export function countRequestsSince(store: Store, budgetKey: string, since: number): number {
  const row = store.db
    .prepare(
      'SELECT COUNT(*) AS n FROM request_log WHERE budget_key = ? AND COALESCE(ended_at, started_at) > ?',
    )
    .get(budgetKey, since) as { n: number };
  return row.n;
}
