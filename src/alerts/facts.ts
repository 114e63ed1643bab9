import { runLabel, setLabels } from '../store/alert-facts.js';
import { validPayload } from '../store/alerts.js';
import {
  companionRows,
  type DerivedSnapshot,
  derivedSnapshots,
  metricValuesOf,
} from '../store/metric-reads.js';
import type { Store } from '../store/sql.js';
import type { RunFacts } from './run-facts.js';

/**
 * A set's stored runs as the facts the rules read: the tidy rows of the metrics layer, the error
 * register's claims, and the two things the rows do not hold (competitive shares with their
 * `isBrand` flag, the presence classification), read from the valid payloads.
 */

export interface SetHistory {
  account: string;
  querySetId: number;
  querySet: string;
  brand: string;
  snapshots: DerivedSnapshot[];
}

/** Derived (reportable) snapshots of each selected set, oldest run first. */
export async function setHistories(
  store: Store,
  selection: { account?: string; querySetIds?: readonly number[] },
): Promise<SetHistory[]> {
  const bySet = new Map<string, DerivedSnapshot[]>();
  for (const snapshot of await derivedSnapshots(store, selection)) {
    const key = `${snapshot.account}\u0000${snapshot.query_set_id}`;
    bySet.set(key, [...(bySet.get(key) ?? []), snapshot]);
  }
  const histories: SetHistory[] = [];
  for (const snapshots of bySet.values()) {
    const first = snapshots[0]!;
    const names = await setLabels(store, first.account, first.query_set_id);
    histories.push({
      account: first.account,
      querySetId: first.query_set_id,
      querySet: names?.query_set ?? String(first.query_set_id),
      brand: names?.brand ?? String(first.query_set_id),
      snapshots,
    });
  }
  return histories;
}

export async function runFacts(store: Store, snapshot: DerivedSnapshot): Promise<RunFacts> {
  const rows = await metricValuesOf(store, [snapshot]);
  const label =
    rows[0]?.run ??
    (await runLabel(store, snapshot.account, snapshot.query_set_id, snapshot.run_id)) ??
    String(snapshot.run_id);
  const facts: RunFacts = { runId: snapshot.run_id, label, rows, createdAt: snapshot.run_created_at };
  if ((await validPayload(store, snapshot.snapshot_id, 'gravity.error-register')) !== undefined) {
    facts.errors = (await companionRows(store, 'metric_error_register', [snapshot])).map((row) => ({
      id: String(row.error_id),
      title: String(row.title),
      correct: String(row.correct),
      claim: row.claim == null ? null : String(row.claim),
      engine: row.engine == null ? null : String(row.engine),
    }));
  }
  const context = (await validPayload(store, snapshot.snapshot_id, 'overview.competitive-context')) as
    | { shares?: { name: string; share: number; isBrand: boolean }[] }
    | undefined;
  if (context?.shares) facts.shares = context.shares;
  const weighted = (await validPayload(store, snapshot.snapshot_id, 'presence.weighted')) as
    | { classification?: string }
    | undefined;
  if (typeof weighted?.classification === 'string') facts.classification = weighted.classification;
  return facts;
}
