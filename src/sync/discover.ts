import { catalogEndpoints } from '../api/endpoints.js';
import type { PublishedRun } from '../api/schemas/catalog.js';
import { QuerySetNotFoundError } from '../errors/index.js';
import { getAccount, isStale, listBrands, saveBrands } from '../store/accounts.js';
import {
  ensureQuerySet,
  listQuerySets,
  markGone,
  type QuerySetRow,
  saveDetails,
  saveQuerySets,
  saveRuns,
  setQuerySetError,
} from '../store/query-sets.js';
import { isStoreUnreachable } from '../store/store-unreachable.js';
import { type AccountContext, errorMessage, isStoreFault, stopOnNotAuthorized } from './context.js';

/**
 * Discovery: brands → query sets → details (each cached for `catalog_ttl_minutes`, they rarely
 * change), then `/runs` of every wanted set on every pass (that is how new runs are noticed).
 * Calls go one at a time: there are few, and a -4 then costs exactly one request.
 */

export interface DiscoveredSet {
  querySetId: number;
  runs: PublishedRun[];
}

export async function discover(ctx: AccountContext): Promise<DiscoveredSet[]> {
  const { store, client, clock, signal } = ctx;
  const account = ctx.account.name;
  const ttlMs = ctx.settings.catalog_ttl_minutes * 60_000;

  // sync-account.ts upserted the account before this pass; a missing row is simply never fetched.
  const accountRow = await getAccount(store, account);
  if (isStale(accountRow?.brands_fetched_at ?? null, ttlMs, clock.now())) {
    const brands = await client.get(catalogEndpoints.brands, {}, {}, { signal });
    await saveBrands(store, account, brands, clock.now());
  }

  for (const brand of await listBrands(store, account)) {
    if (!isStale(brand.sets_fetched_at, ttlMs, clock.now())) continue;
    try {
      const sets = await client.get(catalogEndpoints.querySets, { brandId: brand.id }, {}, { signal });
      await saveQuerySets(store, account, brand.id, sets, clock.now());
    } catch (error) {
      if (
        isStoreFault(error) ||
        isStoreUnreachable(error) ||
        stopOnNotAuthorized(ctx, error) ||
        signal.aborted
      )
        throw error;
      // The cached list (if any) still serves; the next pass tries again.
      ctx.issues.push({ account, kind: 'catalog', message: `account ${account}: ${errorMessage(error)}` });
    }
  }

  const found: DiscoveredSet[] = [];
  for (const set of await wantedSets(ctx)) {
    if (set.state === 'gone') continue;
    const runs = await refreshSet(ctx, set, ttlMs);
    if (runs) found.push({ querySetId: set.id, runs });
  }
  return found;
}

/** The sets `sync.query_sets` asks for; a listed id no brand list showed is added so it gets tried. */
async function wantedSets(ctx: AccountContext): Promise<QuerySetRow[]> {
  const { store } = ctx;
  const account = ctx.account.name;
  const wanted = ctx.settings.query_sets;
  if (wanted === 'all') return listQuerySets(store, account);
  for (const id of wanted) await ensureQuerySet(store, account, id);
  const ids = new Set(wanted);
  return (await listQuerySets(store, account)).filter((set) => ids.has(set.id));
}

/** Details (when stale) and runs of one set; undefined when the set is gone or failed this pass. */
async function refreshSet(ctx: AccountContext, set: QuerySetRow, ttlMs: number) {
  const { store, client, clock, signal } = ctx;
  const account = ctx.account.name;
  try {
    if (isStale(set.details_fetched_at, ttlMs, clock.now())) {
      const details = await client.get(catalogEndpoints.details, { querySetId: set.id }, {}, { signal });
      await saveDetails(store, account, set.id, details, clock.now());
    }
    const runs = await client.get(catalogEndpoints.runs, { querySetId: set.id }, {}, { signal });
    await saveRuns(store, account, set.id, runs, clock.now());
    // A set with no published run yet is fine: nothing is due, nothing is wrong.
    return runs;
  } catch (error) {
    if (isStoreFault(error) || isStoreUnreachable(error) || stopOnNotAuthorized(ctx, error) || signal.aborted)
      throw error;
    if (error instanceof QuerySetNotFoundError) {
      await retireSet(ctx, set.id, error);
      return undefined;
    }
    await setQuerySetError(store, account, set.id, errorMessage(error));
    ctx.issues.push({
      account,
      kind: 'catalog',
      querySetId: set.id,
      message: `account ${account}: query set ${set.id}: ${errorMessage(error)}`,
    });
    return undefined;
  }
}

/** -132: the set is marked gone (skipped from now on) — not an error of the pass. */
export async function retireSet(
  ctx: AccountContext,
  querySetId: number,
  error: QuerySetNotFoundError,
): Promise<void> {
  if (ctx.goneSets.includes(querySetId)) return;
  // Counted gone before the write: concurrent workers that hit -132 meanwhile skip the set too.
  ctx.goneSets.push(querySetId);
  await markGone(ctx.store, ctx.account.name, querySetId, error.message, ctx.clock.now());
  ctx.log.warn({ querySetId }, 'query set not found (-132): marked gone, skipped from now on');
}
