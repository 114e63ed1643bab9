import type { RequestHistory } from '../api/request-history.js';
import type { Store } from './sql.js';

/** What `record` hands the budget to pass back to `finish`. */
interface LoggedRequest {
  store: Store;
  rowid: number;
}

/** What `StoreRequestHistory` remembers per store and key (see its `seen`). */
interface Seen {
  loaded: number;
  open: Set<number>;
  /** Rows up to this one never matter to `others`: the lowest of `loaded` and the open rows, less one. */
  after: number;
  own: Set<number>;
}

/** When a request counts from, as the live budget counts it (see `StoreRequestHistory.recent`). */
const COUNTS_FROM =
  'CASE WHEN ended_at IS NOT NULL THEN ended_at WHEN started_at > ? THEN started_at ELSE ? END';

/**
 * The rate budget's memory of when requests started and ended, in the store, so a restarted process
 * knows what the server still counts in its window and does not burst past it (-145 would cost a
 * whole window), and processes sharing a store (two `reportd sync`, a daemon; on PostgreSQL, several
 * machines) share each key's limit.
 *
 * The store is looked up on every call rather than held: a process-wide budget outlives one pass,
 * and the daemon (or a test) may close and reopen the store between passes.
 * Old rows are pruned as the budget reads and every few hundred writes, keeping the table window-sized.
 */
export class StoreRequestHistory implements RequestHistory {
  private readonly storeOf: () => Store;
  private readonly retainMs: number;
  private writes = 0;
  /**
   * Per store and key, what the budget loaded (`recent`) and what this history recorded since, so
   * `others` returns exactly the rows of other processes the budget has not counted yet:
   * - `loaded`: the newest row of the key when the budget loaded its window. Rows up to it were
   *   returned by `recent`; newer ones are other processes' (or this history's, in `own`).
   * - `open`: rows `recent` returned while they were still in flight (counted from the load). When
   *   one ends, `others` returns it again from its end: a request in flight at the load may reach
   *   the server later than the load, and the server counts it from then.
   * Per key because rows of one key are written one at a time under that key's lock, so its
   * committed ids only grow; across keys (PostgreSQL) a lower id may commit later.
   */
  private readonly seen = new WeakMap<Store, Map<string, Seen>>();

  /**
   * The key's bookkeeping on `store`, created on first use. Created by `recent` (under the key's
   * lock, right before it reads the window) it starts after the rows that read returns; created by
   * anything else (the store was reopened after the load) it starts at 0, so every row in the window
   * counts as another's: twice for this process's own, never not at all.
   */
  private seenIn(store: Store, budgetKey: string, loading?: { loaded: number; open: number[] }): Seen {
    let byKey = this.seen.get(store);
    if (!byKey) {
      byKey = new Map();
      this.seen.set(store, byKey);
    }
    let seen = byKey.get(budgetKey);
    if (!seen) {
      seen = {
        loaded: loading?.loaded ?? 0,
        open: new Set(loading?.open ?? []),
        after: Math.min(loading?.loaded ?? 0, ...(loading?.open ?? []).map((id) => id - 1)),
        own: new Set(),
      };
      byKey.set(budgetKey, seen);
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
  async recent(budgetKey: string, since: number, now: number = since): Promise<number[]> {
    const store = this.storeOf();
    // Under the key's lock, so no other process records a request of this key between the newest
    // id read here and the window read below: each row is in one of the two, never in neither.
    return this.exclusive(budgetKey, async () => {
      await prune(store, budgetKey, since);
      const newest = await store.get<{ last: number }>(
        'SELECT COALESCE(MAX(rowid), 0) AS last FROM request_log WHERE budget_key = ?',
        [budgetKey],
      );
      const rows = await store.all<{ row: number; open: number; at: number }>(
        `SELECT rowid AS row, CASE WHEN ended_at IS NULL THEN 1 ELSE 0 END AS open, ${COUNTS_FROM} AS at
         FROM request_log WHERE budget_key = ? AND COALESCE(ended_at, started_at) >= ? ORDER BY at`,
        [now, now, budgetKey, since],
      );
      this.seenIn(store, budgetKey, {
        loaded: Number(newest?.last ?? 0),
        open: rows.filter((row) => Number(row.open) === 1).map((row) => Number(row.row)),
      });
      return rows.map((row) => Number(row.at));
    });
  }

  /**
   * Requests other processes (another `reportd sync`, a daemon) recorded on this store since the
   * budget loaded its window, timed as `recent` times them: read before every grant, so processes
   * sharing a store share the key's limit.
   */
  async others(budgetKey: string, since: number, now: number): Promise<number[]> {
    const store = this.storeOf();
    const seen = this.seenIn(store, budgetKey);
    const rows = await store.all<{ row: number; open: number; at: number }>(
      `SELECT rowid AS row, CASE WHEN ended_at IS NULL THEN 1 ELSE 0 END AS open, ${COUNTS_FROM} AS at
       FROM request_log WHERE budget_key = ? AND rowid > ? AND COALESCE(ended_at, started_at) >= ?`,
      [now, now, budgetKey, seen.after, since],
    );
    return rows
      .filter((row) => {
        const id = Number(row.row);
        if (seen.own.has(id)) return false;
        if (id > seen.loaded) return true;
        // Loaded already; again only once it ended (see `seen`). One that never ends (its process
        // died) keeps the count the load gave it, from the restart.
        return seen.open.has(id) && Number(row.open) === 0;
      })
      .map((row) => Number(row.at));
  }

  /**
   * `fn` in one write transaction holding the key's lock: no other process reads or records for this
   * key between `others` and `record` (SQLite: the write lock, waited for up to 5 s without blocking the event loop;
   * PostgreSQL: an advisory lock per key, so different keys never wait for each other).
   */
  exclusive<T>(budgetKey: string, fn: () => Promise<T>): Promise<T> {
    return this.storeOf().transaction(fn, { lock: `reportd:budget:${budgetKey}` });
  }

  /** Returns the row to `finish()`, with its store: the budget may move to another store meanwhile. */
  async record(budgetKey: string, at: number): Promise<LoggedRequest> {
    const store = this.storeOf();
    const inserted = await store.get<{ rowid: number }>(
      'INSERT INTO request_log (budget_key, started_at) VALUES (?, ?) RETURNING rowid',
      [budgetKey, at],
    );
    const rowid = Number(inserted!.rowid);
    const own = this.seenIn(store, budgetKey).own;
    own.add(rowid);
    if (++this.writes % 500 === 0) {
      await prune(store, budgetKey, at - this.retainMs);
      // Rows older than the window are never read again: forget them here too.
      for (const id of own) if (own.size > 10_000 && id < rowid - 10_000) own.delete(id);
    }
    return { store, rowid };
  }

  async finish(row: unknown, at: number): Promise<void> {
    const logged = row as LoggedRequest | undefined;
    if (!logged?.store) return;
    await logged.store.run('UPDATE request_log SET ended_at = ? WHERE rowid = ?', [at, logged.rowid]);
  }
}

function prune(store: Store, budgetKey: string, before: number): Promise<unknown> {
  return store.run('DELETE FROM request_log WHERE budget_key = ? AND COALESCE(ended_at, started_at) < ?', [
    budgetKey,
    before,
  ]);
}

/**
 * Requests of `budgetKey` that still count after `since` (read-only, for `status`), as `recent`
 * counts them: from their end, or from their start while no end is recorded.
 */
export async function countRequestsSince(store: Store, budgetKey: string, since: number): Promise<number> {
  const row = await store.get<{ n: number }>(
    'SELECT COUNT(*) AS n FROM request_log WHERE budget_key = ? AND COALESCE(ended_at, started_at) > ?',
    [budgetKey, since],
  );
  return Number(row?.n ?? 0);
}
