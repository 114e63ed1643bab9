import { type DerivedSnapshot, derivedSnapshots, metricValuesOf } from '../store/metric-reads.js';
import type { Store } from '../store/sql.js';
import type { MetricChange } from './changes.js';
import { metricName } from './metric-names.js';
import { compareRuns } from './row-changes.js';
import type { SetDetails } from './sample-sizes.js';

/**
 * The store side of the noise model: each selected run's changes against the run stored before it
 * (the previous run of its set, selected or not), each run's changes judged as one family, as the
 * export's `metric_changes` table reads them. Reads the store only.
 */

export interface RunChange extends MetricChange {
  account: string;
  query_set_id: number;
  query_set: string;
  brand: string | null;
  run_id: number;
  run: string;
  previous_run_id: number;
  previous_run: string;
  /** The readable name in `locale` ("Gross presence on ChatGPT"). */
  label: string;
}

/** The set details the API sent (`queries_count`), for the fallback n; engines come from the rows. */
export async function setDetailsOf(store: Store, account: string, querySetId: number): Promise<SetDetails> {
  const row = await store.get<{ details: string | null }>(
    'SELECT details FROM query_sets WHERE account = ? AND id = ?',
    [account, querySetId],
  );
  try {
    const details = row?.details ? (JSON.parse(row.details) as { queries_count?: unknown }) : {};
    return typeof details.queries_count === 'number' ? { queriesCount: details.queries_count } : {};
  } catch {
    return {};
  }
}

/** Changes of `snapshot` against `baseline` (two derived snapshots of one set). */
export async function changesBetween(
  store: Store,
  baseline: DerivedSnapshot,
  snapshot: DerivedSnapshot,
  locale = 'en-US',
): Promise<RunChange[]> {
  const before = await metricValuesOf(store, [baseline]);
  const after = await metricValuesOf(store, [snapshot]);
  const first = after[0];
  if (!first || before.length === 0) return [];
  const details = await setDetailsOf(store, snapshot.account, snapshot.query_set_id);
  return compareRuns(before, after, { before: details, after: details }).map((change) => ({
    account: first.account,
    query_set_id: first.query_set_id,
    query_set: first.query_set,
    brand: first.brand,
    run_id: first.run_id,
    run: first.run,
    previous_run_id: before[0]!.run_id,
    previous_run: before[0]!.run,
    label: metricName(change, locale),
    ...change,
  }));
}

/** Every selected run's changes against the run stored before it; a set's first run has none. */
export async function runChanges(
  store: Store,
  snapshots: readonly DerivedSnapshot[],
  locale = 'en-US',
): Promise<RunChange[]> {
  const out: RunChange[] = [];
  const historyOf = new Map<string, DerivedSnapshot[]>();
  for (const snapshot of snapshots) {
    const key = `${snapshot.account}\u0000${snapshot.query_set_id}`;
    let history = historyOf.get(key);
    if (!history) {
      history = await derivedSnapshots(store, {
        account: snapshot.account,
        querySetIds: [snapshot.query_set_id],
      });
      historyOf.set(key, history);
    }
    const at = history.findIndex((s) => s.snapshot_id === snapshot.snapshot_id);
    if (at <= 0) continue;
    out.push(...(await changesBetween(store, history[at - 1]!, snapshot, locale)));
  }
  return out;
}
