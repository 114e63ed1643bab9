import { scrub, scrubOrNull } from '../secrets.js';
import type { Store } from './db.js';

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
): void {
  const upsert = store.db.prepare(
    `INSERT INTO query_sets (account, id, brand_id, name, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (account, id) DO UPDATE SET brand_id = excluded.brand_id, name = excluded.name,
       created_at = excluded.created_at, state = 'active', gone_at = NULL`,
  );
  store.db.transaction(() => {
    for (const set of sets) upsert.run(account, set.id, brandId, set.name, set.created_at);
    store.db
      .prepare('UPDATE brands SET sets_fetched_at = ? WHERE account = ? AND id = ?')
      .run(iso(at), account, brandId);
  })();
}

/** Adds a set named in `sync.query_sets` that no brand list showed, so its -132 can be recorded. */
export function ensureQuerySet(store: Store, account: string, id: number): void {
  store.db
    .prepare(
      `INSERT INTO query_sets (account, id, name) VALUES (?, ?, ?) ON CONFLICT (account, id) DO NOTHING`,
    )
    .run(account, id, `query set ${id}`);
}

export function saveDetails(
  store: Store,
  account: string,
  id: number,
  details: { query_set_name: string; engines: unknown },
  at: number,
): void {
  store.db
    .prepare(
      `UPDATE query_sets SET details = ?, engines = ?, name = ?, details_fetched_at = ?, last_error = NULL
       WHERE account = ? AND id = ?`,
    )
    .run(
      JSON.stringify(details),
      JSON.stringify(details.engines),
      details.query_set_name,
      iso(at),
      account,
      id,
    );
}

/** -132: the set no longer exists for this credential. It is skipped until a brand list shows it again. */
export function markGone(store: Store, account: string, id: number, reason: string, at: number): void {
  store.db
    .prepare(`UPDATE query_sets SET state = 'gone', gone_at = ?, last_error = ? WHERE account = ? AND id = ?`)
    .run(iso(at), scrub(reason), account, id);
}

export function setQuerySetError(store: Store, account: string, id: number, error: string | null): void {
  store.db
    .prepare('UPDATE query_sets SET last_error = ? WHERE account = ? AND id = ?')
    .run(scrubOrNull(error), account, id);
}

export function getQuerySet(store: Store, account: string, id: number): QuerySetRow | undefined {
  return store.db.prepare('SELECT * FROM query_sets WHERE account = ? AND id = ?').get(account, id) as
    | QuerySetRow
    | undefined;
}

export function listQuerySets(store: Store, account: string): QuerySetRow[] {
  return store.db
    .prepare('SELECT * FROM query_sets WHERE account = ? ORDER BY id')
    .all(account) as QuerySetRow[];
}

/** Adds newly published runs; a known run is left as first seen (published runs never change). */
export function saveRuns(
  store: Store,
  account: string,
  querySetId: number,
  runs: { id: number; display_name: string; created_at: string }[],
  at: number,
): number {
  const insert = store.db.prepare(
    `INSERT INTO runs (account, query_set_id, id, display_name, created_at, first_seen_at)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  return store.db.transaction(() => {
    let added = 0;
    for (const run of runs) {
      added += insert.run(account, querySetId, run.id, run.display_name, run.created_at, iso(at)).changes;
    }
    return added;
  })();
}

/** Runs of a set, newest first (by publication time, then id for runs published the same instant). */
export function listRuns(store: Store, account: string, querySetId: number): RunRow[] {
  const rows = store.db
    .prepare('SELECT * FROM runs WHERE account = ? AND query_set_id = ?')
    .all(account, querySetId) as RunRow[];
  // Sorted here, not in SQL: offsets like +0100 (no colon) are valid ISO 8601 but not to SQLite.
  return rows.sort(newestRunFirst);
}

export function newestRunFirst(a: { id: number; created_at: string }, b: { id: number; created_at: string }) {
  return Date.parse(b.created_at) - Date.parse(a.created_at) || b.id - a.id;
}
