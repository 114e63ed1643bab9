import type { RequestHistory } from '../api/budget.js';
import type { Store } from './db.js';

/**
 * The rate budget's memory of when requests started, in SQLite, so a restarted process knows what
 * the server still counts in its window and does not burst past it (-145 would cost a whole window).
 *
 * The store is looked up on every call rather than held: a process-wide budget outlives one pass,
 * and the daemon (or a test) may close and reopen the store between passes.
 * Old rows are pruned as the budget reads and every few hundred writes, keeping the table window-sized.
 */
export class SqliteRequestHistory implements RequestHistory {
  private readonly storeOf: () => Store;
  private readonly retainMs: number;
  private writes = 0;

  /** `retainMs`: how long a row may matter (the longest window of any budget using this history). */
  constructor(store: Store | (() => Store), options: { retainMs?: number } = {}) {
    this.storeOf = typeof store === 'function' ? store : () => store;
    this.retainMs = options.retainMs ?? 3_600_000;
  }

  recent(budgetKey: string, since: number): number[] {
    const { db } = this.storeOf();
    db.prepare('DELETE FROM request_log WHERE budget_key = ? AND started_at < ?').run(budgetKey, since);
    return db
      .prepare(
        'SELECT started_at FROM request_log WHERE budget_key = ? AND started_at >= ? ORDER BY started_at',
      )
      .pluck()
      .all(budgetKey, since) as number[];
  }

  record(budgetKey: string, at: number): void {
    const { db } = this.storeOf();
    db.prepare('INSERT INTO request_log (budget_key, started_at) VALUES (?, ?)').run(budgetKey, at);
    if (++this.writes % 500 === 0) {
      db.prepare('DELETE FROM request_log WHERE budget_key = ? AND started_at < ?').run(
        budgetKey,
        at - this.retainMs,
      );
    }
  }
}

/** Requests started for `budgetKey` after `since` (read-only, for `status`): a start at `now - window` has left it. */
export function countRequestsSince(store: Store, budgetKey: string, since: number): number {
  const row = store.db
    .prepare('SELECT COUNT(*) AS n FROM request_log WHERE budget_key = ? AND started_at > ?')
    .get(budgetKey, since) as { n: number };
  return row.n;
}
