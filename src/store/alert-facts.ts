import type { Store } from './sql.js';

/**
 * The labels an alert names a set and a run by (alerts/facts.ts): read here so the alerts module
 * holds no SQL. Portable SQL (SQLite and PostgreSQL); aliases are lowercase because PostgreSQL folds
 * unquoted names.
 */

export interface SetLabels {
  query_set: string;
  /** The brand's name, or the set's when the brand is unknown or unnamed in the store. */
  brand: string;
}

/** The set's name and its brand's, or undefined when the set is not stored. */
export async function setLabels(
  store: Store,
  account: string,
  querySetId: number,
): Promise<SetLabels | undefined> {
  return store.get<SetLabels>(
    `SELECT q.name AS query_set, COALESCE(b.name, q.name) AS brand FROM query_sets q
     LEFT JOIN brands b ON b.account = q.account AND b.id = q.brand_id
     WHERE q.account = ? AND q.id = ?`,
    [account, querySetId],
  );
}

/** The run's display name, or undefined when the run is not stored. */
export async function runLabel(
  store: Store,
  account: string,
  querySetId: number,
  runId: number,
): Promise<string | undefined> {
  const row = await store.get<{ display_name: string }>(
    'SELECT display_name FROM runs WHERE account = ? AND query_set_id = ? AND id = ?',
    [account, querySetId, runId],
  );
  return row?.display_name;
}
