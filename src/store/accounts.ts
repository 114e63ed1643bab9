import { scrubOrNull } from '../secrets.js';
import type { Store } from './sql.js';

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
export async function upsertAccount(
  store: Store,
  account: { name: string; baseUrl: string; budgetKey: string },
): Promise<void> {
  await store.run(
    `INSERT INTO accounts (name, base_url, budget_key) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET
       -- Another server or key means another company: the cached catalog no longer applies.
       brands_fetched_at = CASE WHEN accounts.base_url = excluded.base_url
         AND accounts.budget_key = excluded.budget_key THEN accounts.brands_fetched_at END,
       base_url = excluded.base_url, budget_key = excluded.budget_key`,
    [account.name, account.baseUrl, account.budgetKey],
  );
}

const ACCOUNT_COLUMNS =
  'name, base_url, budget_key, brands_fetched_at, last_sync_at, last_error, last_error_at';

export function getAccount(store: Store, name: string): Promise<AccountRow | undefined> {
  return store.get<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE name = ?`, [name]);
}

export function listAccounts(store: Store): Promise<AccountRow[]> {
  return store.all<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY name`);
}

export async function recordAccountPass(
  store: Store,
  name: string,
  at: number,
  error: string | null,
): Promise<void> {
  await store.run(
    `UPDATE accounts SET last_sync_at = ?, last_error = ?,
       last_error_at = CASE WHEN CAST(? AS TEXT) IS NULL THEN last_error_at ELSE ? END WHERE name = ?`,
    [iso(at), scrubOrNull(error), error, iso(at), name],
  );
}

export function saveBrands(
  store: Store,
  account: string,
  brands: { id: number; name: string }[],
  at: number,
): Promise<void> {
  return store.transaction(async () => {
    for (const brand of brands) {
      await store.run(
        `INSERT INTO brands (account, id, name) VALUES (?, ?, ?)
         ON CONFLICT (account, id) DO UPDATE SET name = excluded.name`,
        [account, brand.id, brand.name],
      );
    }
    await store.run('UPDATE accounts SET brands_fetched_at = ? WHERE name = ?', [iso(at), account]);
  });
}

export function listBrands(store: Store, account: string): Promise<BrandRow[]> {
  return store.all<BrandRow>(
    'SELECT account, id, name, sets_fetched_at FROM brands WHERE account = ? ORDER BY id',
    [account],
  );
}

export function isStale(fetchedAt: string | null, ttlMs: number, now: number): boolean {
  return fetchedAt === null || now - Date.parse(fetchedAt) >= ttlMs;
}
