import { scrubOrNull } from '../secrets.js';
import type { Store } from './db.js';

// Error text is scrubbed where it is written: it may quote a server's reply or an exception, and a
// stored secret would outlive a later rotation (reads only know the secrets registered by then).

/** Accounts and their brands: the top of the catalog, refreshed when the catalog TTL runs out. */

export interface AccountRow {
  name: string;
  base_url: string;
  budget_key: string;
  brands_fetched_at: string | null;
  last_sync_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
}

export interface BrandRow {
  account: string;
  id: number;
  name: string;
  sets_fetched_at: string | null;
}

const iso = (at: number) => new Date(at).toISOString();

/** Records the account as configured now; a changed base URL or key moves it to a new budget key. */
export function upsertAccount(
  store: Store,
  account: { name: string; baseUrl: string; budgetKey: string },
): void {
  store.db
    .prepare(
      `INSERT INTO accounts (name, base_url, budget_key) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET
         -- Another server or key means another company: the cached catalog no longer applies.
         brands_fetched_at = CASE WHEN accounts.base_url = excluded.base_url
           AND accounts.budget_key = excluded.budget_key THEN accounts.brands_fetched_at END,
         base_url = excluded.base_url, budget_key = excluded.budget_key`,
    )
    .run(account.name, account.baseUrl, account.budgetKey);
}

export function getAccount(store: Store, name: string): AccountRow | undefined {
  return store.db.prepare('SELECT * FROM accounts WHERE name = ?').get(name) as AccountRow | undefined;
}

export function listAccounts(store: Store): AccountRow[] {
  return store.db.prepare('SELECT * FROM accounts ORDER BY name').all() as AccountRow[];
}

/** Ends a pass of the account: `error` is the reason it stopped, or null when it went through. */
export function recordAccountPass(store: Store, name: string, at: number, error: string | null): void {
  store.db
    .prepare(
      `UPDATE accounts SET last_sync_at = ?, last_error = ?,
         last_error_at = CASE WHEN ? IS NULL THEN last_error_at ELSE ? END WHERE name = ?`,
    )
    .run(iso(at), scrubOrNull(error), error, iso(at), name);
}

/** Replaces the brand list in one transaction and stamps the account's catalog TTL. */
export function saveBrands(
  store: Store,
  account: string,
  brands: { id: number; name: string }[],
  at: number,
) {
  const upsert = store.db.prepare(
    `INSERT INTO brands (account, id, name) VALUES (?, ?, ?)
     ON CONFLICT (account, id) DO UPDATE SET name = excluded.name`,
  );
  store.db.transaction(() => {
    for (const brand of brands) upsert.run(account, brand.id, brand.name);
    store.db.prepare('UPDATE accounts SET brands_fetched_at = ? WHERE name = ?').run(iso(at), account);
  })();
}

export function listBrands(store: Store, account: string): BrandRow[] {
  return store.db.prepare('SELECT * FROM brands WHERE account = ? ORDER BY id').all(account) as BrandRow[];
}

/** True when `fetchedAt` is missing or older than the TTL: the catalog entry must be fetched again. */
export function isStale(fetchedAt: string | null, ttlMs: number, now: number): boolean {
  return fetchedAt === null || now - Date.parse(fetchedAt) >= ttlMs;
}
