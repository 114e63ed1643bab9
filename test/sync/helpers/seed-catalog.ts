import { saveBrands, upsertAccount } from '../../../src/store/accounts.js';
import { saveDetails, saveQuerySets, saveRuns } from '../../../src/store/query-sets.js';
import type { Store } from '../../../src/store/sql.js';

/** Seeds account `acme`, brand 1, set 101 with runs 1..n (run n newest) straight into the store. */
export async function seedCatalog(store: Store, runs = 3, at = Date.UTC(2026, 0, 1)): Promise<void> {
  await upsertAccount(store, {
    name: 'acme',
    baseUrl: 'http://127.0.0.1:1/v2/integration',
    budgetKey: 'k@h',
  });
  await saveBrands(store, 'acme', [{ id: 1, name: 'Northwind Coffee' }], at);
  await saveQuerySets(store, 'acme', 1, [{ id: 101, name: 'Main', created_at: '2025-01-01T00:00:00Z' }], at);
  await saveDetails(
    store,
    'acme',
    101,
    { query_set_name: 'Main set', engines: [{ id: 1, name: 'GPT' }] },
    at,
  );
  await saveRuns(
    store,
    'acme',
    101,
    Array.from({ length: runs }, (_, i) => ({
      id: i + 1,
      display_name: `Run ${i + 1}`,
      created_at: new Date(Date.UTC(2025, i, 1)).toISOString(),
    })),
    at,
  );
}
