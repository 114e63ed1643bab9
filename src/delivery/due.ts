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
export async function latestRuns(
  store: Store,
  report: DueReport,
  accounts: readonly { name: string }[],
): Promise<LatestRun[]> {
  const account = reportAccount(report, accounts);
  const sets: { account: string | undefined; id: number }[] = [];
  if (report.query_sets === 'all') {
    for (const name of account ? [account] : accounts.map((a) => a.name)) {
      for (const set of await listQuerySets(store, name)) {
        if (set.state === 'active') sets.push({ account: name, id: set.id });
      }
    }
  } else {
    sets.push(...report.query_sets.map((id) => ({ account, id })));
  }
  const out: LatestRun[] = [];
  for (const set of sets) {
    const snapshot = await findSnapshot(store, { querySetId: set.id, account: set.account });
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
export async function enqueueLatest(
  outbox: Outbox,
  store: Store,
  report: DueReport,
  accounts: readonly { name: string }[],
  options: { force?: boolean } = {},
): Promise<EnqueueResult[]> {
  const results: EnqueueResult[] = [];
  for (const run of await latestRuns(store, report, accounts)) {
    results.push(
      ...(await outbox.enqueueAll(
        { report: report.name, querySetId: run.querySetId, runId: run.runId, account: run.account },
        options,
      )),
    );
  }
  return results;
}
