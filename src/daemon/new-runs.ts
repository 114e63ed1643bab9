import type { DueReport } from '../delivery/due.js';
import { latestRuns } from '../delivery/due.js';
import type { Outbox } from '../delivery/outbox.js';
import type { Store } from '../store/db.js';
import type { EnqueueResult } from '../store/deliveries.js';
import { newestRunFirst } from '../store/query-sets.js';
import { getJobCursor, setJobCursor } from './job-state.js';

type SeenRuns = Record<string, { runId: number; createdAt: string }>;

/**
 * For `trigger: new_run`: enqueues a set's newest complete run when it is newer than the newest one
 * this report has seen. The first evaluation only records what exists (a report added to a store full
 * of history, or a fresh install's first sync, sends nothing: only runs published from then on do).
 * The cursor lives in `job_state`, so a restart neither resends nor forgets.
 */
export function enqueueNewRuns(
  outbox: Outbox,
  store: Store,
  report: DueReport,
  accounts: readonly { name: string }[],
): EnqueueResult[] {
  const job = `report:${report.name}`;
  const seen = getJobCursor<SeenRuns>(store, job);
  const next: SeenRuns = { ...seen };
  const results: EnqueueResult[] = [];
  for (const run of latestRuns(store, report, accounts)) {
    const key = `${run.account}/${run.querySetId}`;
    const previous = seen?.[key];
    const newer =
      !previous ||
      newestRunFirst(
        { id: run.runId, created_at: run.createdAt },
        { id: previous.runId, created_at: previous.createdAt },
      ) < 0;
    if (!newer) continue;
    // A set that appears after the first evaluation is new data too: its first run is sent.
    if (seen) {
      results.push(
        ...outbox.enqueueAll({
          report: report.name,
          querySetId: run.querySetId,
          runId: run.runId,
          account: run.account,
        }),
      );
    }
    next[key] = { runId: run.runId, createdAt: run.createdAt };
  }
  setJobCursor(store, job, next);
  return results;
}
