import type { Store } from '../store/db.js';
import type { EnqueueResult } from '../store/deliveries.js';
import { listQuerySets } from '../store/query-sets.js';
import { findSnapshot } from '../store/snapshots.js';
import type { Outbox } from './outbox.js';

/**
 * Which (report, query set, run) rows are due. A report is about the newest complete run of each of
 * its sets: scheduled reports and `reportd deliver` take that run; `trigger: new_run` reports take
 * it only when it is newer than what they have already seen (src/daemon/new-runs.ts).
 */

export interface DueReport {
  name: string;
  account?: string;
  query_sets: 'all' | readonly number[];
}

export interface LatestRun {
  account: string;
  querySetId: number;
  runId: number;
  createdAt: string;
}

/** The report's account: the named one, or the only one configured. */
export function reportAccount(report: DueReport, accounts: readonly { name: string }[]): string | undefined {
  return report.account ?? (accounts.length === 1 ? accounts[0]?.name : undefined);
}

/** The newest complete snapshot's run for each set of the report (sets without one are left out). */
export function latestRuns(
  store: Store,
  report: DueReport,
  accounts: readonly { name: string }[],
): LatestRun[] {
  const account = reportAccount(report, accounts);
  const sets =
    report.query_sets === 'all'
      ? (account ? [account] : accounts.map((a) => a.name)).flatMap((name) =>
          listQuerySets(store, name)
            .filter((set) => set.state === 'active')
            .map((set) => ({ account: name as string | undefined, id: set.id })),
        )
      : report.query_sets.map((id) => ({ account, id }));
  const out: LatestRun[] = [];
  for (const set of sets) {
    const snapshot = findSnapshot(store, { querySetId: set.id, account: set.account });
    if (!snapshot) continue;
    out.push({
      account: snapshot.account,
      querySetId: snapshot.querySet.id,
      runId: snapshot.run.id,
      createdAt: snapshot.run.created_at,
    });
  }
  return out;
}

/**
 * Enqueues the newest complete run of each set, one row per destination of the report (already
 * delivered rows stay as they are unless `force`).
 */
export function enqueueLatest(
  outbox: Outbox,
  store: Store,
  report: DueReport,
  accounts: readonly { name: string }[],
  options: { force?: boolean } = {},
): EnqueueResult[] {
  return latestRuns(store, report, accounts).flatMap((run) =>
    outbox.enqueueAll(
      { report: report.name, querySetId: run.querySetId, runId: run.runId, account: run.account },
      options,
    ),
  );
}
