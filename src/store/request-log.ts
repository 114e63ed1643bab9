import type { RequestHistory } from '../api/budget.js';
import type { Store } from './db.js';

/**
 * The rate budget's memory of when requests started, in SQLite, so a restarted process knows what
 * the server still counts in its window and does not burst past it (-145 would cost a whole window).
 * Rows older than what anyone asks for are pruned as the budget reads, keeping the table window-sized.
 */
export class SqliteRequestHistory implements RequestHistory {
  private readonly insert;
  private readonly select;
  private readonly prune;

  constructor(store: Store) {
    this.insert = store.db.prepare('INSERT INTO request_log (budget_key, started_at) VALUES (?, ?)');
    this.select = store.db.prepare(
      'SELECT started_at FROM request_log WHERE budget_key = ? AND started_at >= ? ORDER BY started_at',
    );
    this.prune = store.db.prepare('DELETE FROM request_log WHERE budget_key = ? AND started_at < ?');
  }

  recent(budgetKey: string, since: number): number[] {
    this.prune.run(budgetKey, since);
    return (this.select.all(budgetKey, since) as { started_at: number }[]).map((row) => row.started_at);
  }

  record(budgetKey: string, at: number): void {
    this.insert.run(budgetKey, at);
  }
}

/** Requests started for `budgetKey` after `since` (read-only, for `status`): a start at `now - window` has left it. */
export function countRequestsSince(store: Store, budgetKey: string, since: number): number {
  const row = store.db
    .prepare('SELECT COUNT(*) AS n FROM request_log WHERE budget_key = ? AND started_at > ?')
    .get(budgetKey, since) as { n: number };
  return row.n;
}
