import type { DueReport } from '../delivery/due.js';
import { enqueueDigestOf, enqueueDue, type LatestRun, latestRuns, worthSending } from '../delivery/due.js';
import type { Outbox } from '../delivery/outbox-worker.js';
import type { EnqueueResult } from '../outbox/row.js';
import { getJobCursor, setJobCursor } from '../store/job-state.js';
import { newestRunFirst } from '../store/query-sets.js';
import { listSnapshots } from '../store/snapshots.js';
import type { Store } from '../store/sql.js';

type SeenRuns = Record<string, { runId: number; createdAt: string }>;

/**
 * For `trigger: new_run`: enqueues each reportable (complete or settled) run of a set that is newer
 * than the newest one this report has seen, oldest first. The first evaluation only records what exists (a report added to a store full
 * of history, or a fresh install's first sync, sends nothing: only runs published from then on do).
 * The cursor lives in `job_state`, so a restart neither resends nor forgets.
 */
export async function enqueueNewRuns(
  outbox: Outbox,
  store: Store,
  report: DueReport,
  accounts: readonly { name: string }[],
): Promise<EnqueueResult[]> {
  const job = `report:${report.name}`;
  const seen = await getJobCursor<SeenRuns>(store, job);
  const next: SeenRuns = { ...seen };
  const results: EnqueueResult[] = [];
  const latest = await latestRuns(store, report, accounts);
  const digest = report.mode !== 'per_set';
  let anyNewer = false;
  for (const run of latest) {
    const key = `${run.account}/${run.querySetId}`;
    const previous = seen?.[key];
    const newer =
      !previous ||
      newestRunFirst(
        { id: run.runId, created_at: run.createdAt },
        { id: previous.runId, created_at: previous.createdAt },
      ) < 0;
    if (!newer) continue;
    anyNewer = true;
    if (seen && !digest && !report.recipients) {
      // Every run published since the last evaluation is sent, once each and oldest first: readers
      // of a "new run" report expect each one, not only the newest when two land between syncs. A
      // set that appears after the first evaluation is new data too: its newest run is sent.
      const runs = previous ? await reportableRunsSince(store, run, previous) : [run];
      for (const each of await worthSending(store, report, runs, {})) {
        results.push(
          ...(await outbox.enqueueAll({
            report: report.name,
            querySetId: each.querySetId,
            runId: each.runId,
            account: each.account,
          })),
        );
      }
    }
    next[key] = { runId: run.runId, createdAt: run.createdAt };
  }
  // A digest is enqueued once per evaluation, after the sync pass: a pass that stored three new runs
  // sends one message covering them all, not three.
  // A table's rows each take the newest runs of their own slice (due.ts), whatever the mode.
  if (seen && anyNewer && report.recipients)
    results.push(...(await enqueueDue(outbox, store, report, accounts)));
  else if (seen && digest && anyNewer) {
    const runs = await worthSending(store, report, latest, {});
    if (runs.length > 0) results.push(...(await enqueueDigestOf(outbox, store, report.name, runs)));
  }
  await setJobCursor(store, job, next);
  return results;
}

/** The reportable runs of `latest`'s set newer than `previous`, oldest first (`latest` among them). */
async function reportableRunsSince(
  store: Store,
  latest: LatestRun,
  previous: { runId: number; createdAt: string },
): Promise<LatestRun[]> {
  const since = { id: previous.runId, created_at: previous.createdAt };
  return (await listSnapshots(store, { querySetId: latest.querySetId, account: latest.account }))
    .filter((snapshot) => newestRunFirst(snapshot.run, since) < 0)
    .map((snapshot) => ({
      account: snapshot.account,
      querySetId: snapshot.querySet.id,
      runId: snapshot.run.id,
      createdAt: snapshot.run.created_at,
    }))
    .reverse();
}
