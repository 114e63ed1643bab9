import { scrub, scrubOrNull } from '../secrets.js';
import type { Store } from './sql.js';

// Error text is scrubbed where it is written: it may quote a server's reply or an exception, and a
// stored secret would outlive a later rotation (reads only know the secrets registered by then).

/** Query sets (with their details and engines) and their published runs. */

export interface QuerySetRow {
  account: string;
  id: number;
  brand_id: number | null;
  name: string;
  created_at: string | null;
  details: string | null;
  engines: string | null;
  details_fetched_at: string | null;
  state: 'active' | 'gone';
  gone_at: string | null;
  last_error: string | null;
}

export interface RunRow {
  account: string;
  query_set_id: number;
  id: number;
  display_name: string;
  created_at: string;
  first_seen_at: string;
}

const iso = (at: number) => new Date(at).toISOString();

/**
 * Saves a brand's set list and stamps the brand's TTL. A listed set is active again even if it was
 * gone: the list is the server's word that the credential can see it now.
 */
export function saveQuerySets(
  store: Store,
  account: string,
  brandId: number,
  sets: { id: number; name: string; created_at: string }[],
  at: number,
): Promise<void> {
  return store.transaction(async () => {
    for (const set of sets) {
      await store.run(
        `INSERT INTO query_sets (account, id, brand_id, name, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (account, id) DO UPDATE SET brand_id = excluded.brand_id, name = excluded.name,
           created_at = excluded.created_at, state = 'active', gone_at = NULL`,
        [account, set.id, brandId, set.name, set.created_at],
      );
    }
    await store.run('UPDATE brands SET sets_fetched_at = ? WHERE account = ? AND id = ?', [
      iso(at),
      account,
      brandId,
    ]);
  });
}

export async function ensureQuerySet(store: Store, account: string, id: number): Promise<void> {
  await store.run(
    `INSERT INTO query_sets (account, id, name) VALUES (?, ?, ?) ON CONFLICT (account, id) DO NOTHING`,
    [account, id, `query set ${id}`],
  );
}

export async function saveDetails(
  store: Store,
  account: string,
  id: number,
  details: { query_set_name: string; engines: unknown },
  at: number,
): Promise<void> {
  await store.run(
    `UPDATE query_sets SET details = ?, engines = ?, name = ?, details_fetched_at = ?, last_error = NULL
     WHERE account = ? AND id = ?`,
    [JSON.stringify(details), JSON.stringify(details.engines), details.query_set_name, iso(at), account, id],
  );
}

export async function markGone(
  store: Store,
  account: string,
  id: number,
  reason: string,
  at: number,
): Promise<void> {
  await store.run(
    `UPDATE query_sets SET state = 'gone', gone_at = ?, last_error = ? WHERE account = ? AND id = ?`,
    [iso(at), scrub(reason), account, id],
  );
}

export async function setQuerySetError(
  store: Store,
  account: string,
  id: number,
  error: string | null,
): Promise<void> {
  await store.run('UPDATE query_sets SET last_error = ? WHERE account = ? AND id = ?', [
    scrubOrNull(error),
    account,
    id,
  ]);
}

const QUERY_SET_COLUMNS =
  'account, id, brand_id, name, created_at, details, engines, details_fetched_at, state, gone_at, last_error';

export function getQuerySet(store: Store, account: string, id: number): Promise<QuerySetRow | undefined> {
  return store.get<QuerySetRow>(`SELECT ${QUERY_SET_COLUMNS} FROM query_sets WHERE account = ? AND id = ?`, [
    account,
    id,
  ]);
}

export function listQuerySets(store: Store, account: string): Promise<QuerySetRow[]> {
  return store.all<QuerySetRow>(`SELECT ${QUERY_SET_COLUMNS} FROM query_sets WHERE account = ? ORDER BY id`, [
    account,
  ]);
}

export function saveRuns(
  store: Store,
  account: string,
  querySetId: number,
  runs: { id: number; display_name: string; created_at: string }[],
  at: number,
): Promise<number> {
  return store.transaction(async () => {
    let added = 0;
    for (const run of runs) {
      const { changes } = await store.run(
        `INSERT INTO runs (account, query_set_id, id, display_name, created_at, first_seen_at)
         VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        [account, querySetId, run.id, run.display_name, run.created_at, iso(at)],
      );
      added += changes;
    }
    return added;
  });
}

export async function listRuns(store: Store, account: string, querySetId: number): Promise<RunRow[]> {
  const rows = await store.all<RunRow>(
    'SELECT account, query_set_id, id, display_name, created_at, first_seen_at FROM runs WHERE account = ? AND query_set_id = ?',
    [account, querySetId],
  );
  // Sorted here, not in SQL: offsets like +0100 (no colon) are valid ISO 8601 but not to SQLite.
  return rows.sort(newestRunFirst);
}

export function newestRunFirst(a: { id: number; created_at: string }, b: { id: number; created_at: string }) {
  return Date.parse(b.created_at) - Date.parse(a.created_at) || b.id - a.id;
}
