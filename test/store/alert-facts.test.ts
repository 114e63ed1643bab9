import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { saveBrands, upsertAccount } from '../../src/store/accounts.js';
import { runLabel, setLabels } from '../../src/store/alert-facts.js';
import { ensureQuerySet, saveQuerySets, saveRuns } from '../../src/store/query-sets.js';
import type { Store } from '../../src/store/sql.js';
import { tempStore } from '../sync/helpers/temp-store.js';

/**
 * The names an alert gives a set and a run (its subject, its text), read on the engine under test:
 * the brand's name when the store knows it, else the set's, and nothing for what is not stored.
 */
let store: Store;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ store, cleanup } = await tempStore());
  await upsertAccount(store, {
    name: 'acme',
    baseUrl: 'https://api.example.com/v2/integration',
    budgetKey: 'k',
  });
});
afterEach(async () => {
  await cleanup();
});

describe('alert labels', () => {
  it("a set is named with its brand's name, or its own when the brand is unknown", async () => {
    await saveBrands(store, 'acme', [{ id: 7, name: 'Northwind <Coffee>' }], 0);
    await saveQuerySets(
      store,
      'acme',
      7,
      [{ id: 101, name: 'Buyers DACH', created_at: '2026-01-05T09:00:00Z' }],
      0,
    );
    // A set named in sync.query_sets but in no brand list has no brand row.
    await ensureQuerySet(store, 'acme', 102);
    expect(await setLabels(store, 'acme', 101)).toEqual({
      query_set: 'Buyers DACH',
      brand: 'Northwind <Coffee>',
    });
    expect(await setLabels(store, 'acme', 102)).toEqual({
      query_set: 'query set 102',
      brand: 'query set 102',
    });
    expect(await setLabels(store, 'acme', 103)).toBeUndefined();
    expect(await setLabels(store, 'other', 101)).toBeUndefined();
  });

  it('a run is named by its display name; a run not stored has none', async () => {
    await ensureQuerySet(store, 'acme', 101);
    await saveRuns(
      store,
      'acme',
      101,
      [{ id: 4825, display_name: 'W12 2026', created_at: '2026-03-16T06:00:00Z' }],
      0,
    );
    expect(await runLabel(store, 'acme', 101, 4825)).toBe('W12 2026');
    expect(await runLabel(store, 'acme', 101, 4826)).toBeUndefined();
    expect(await runLabel(store, 'acme', 102, 4825)).toBeUndefined();
  });
});
