import type { PublishedRun } from '../api/schemas/catalog.js';
import type { Store } from '../store/db.js';
import { endpointsToFetch, REQUIRED_ENDPOINTS, type SnapshotState } from '../store/payloads.js';
import { newestRunFirst } from '../store/query-sets.js';
import { snapshotStates } from '../store/snapshots.js';
import type { DiscoveredSet } from './discover.js';

/**
 * Planning: which runs are due (the newest `backfill_runs` of each set without a complete snapshot)
 * and, for each, which endpoints are still missing. A complete snapshot is never planned again; a
 * half-fetched one resumes with only its missing payloads.
 */

export interface DueRun {
  querySetId: number;
  run: PublishedRun;
  /** The existing snapshot's id, if a previous pass started it. */
  snapshotId?: number;
  state?: SnapshotState;
}

export interface PlannedSnapshot extends DueRun {
  /** Metric endpoint keys still to fetch, in catalog order (may be empty: retries used up). */
  endpoints: string[];
}

/** Pure: the due runs of one set, newest first. */
export function dueRuns(
  querySetId: number,
  runs: readonly PublishedRun[],
  snapshots: ReadonlyMap<number, { id: number; state: SnapshotState }>,
  backfillRuns: number,
): DueRun[] {
  return [...runs]
    .sort(newestRunFirst)
    .slice(0, Math.max(0, backfillRuns))
    .map((run) => ({ querySetId, run, ...existing(snapshots.get(run.id)) }))
    .filter((due) => due.state !== 'complete');
}

function existing(snapshot: { id: number; state: SnapshotState } | undefined) {
  return snapshot ? { snapshotId: snapshot.id, state: snapshot.state } : {};
}

/**
 * Pure: interleaves the sets' due runs newest first across sets, so every set's latest data lands
 * before anyone's backfill (what a report due now needs).
 */
export function orderDue(perSet: readonly DueRun[][]): DueRun[] {
  return perSet.flat().sort((a, b) => newestRunFirst(a.run, b.run) || a.querySetId - b.querySetId);
}

/** The plan of one account's pass, read against the store. */
export function planSnapshots(
  store: Store,
  account: string,
  sets: readonly DiscoveredSet[],
  settings: { backfill_runs: number; max_payload_retries: number },
): PlannedSnapshot[] {
  // One first fetch plus `max_payload_retries` re-fetches of a payload that keeps failing validation.
  const maxAttempts = 1 + Math.max(0, settings.max_payload_retries);
  const due = orderDue(
    sets.map((set) =>
      dueRuns(
        set.querySetId,
        set.runs,
        snapshotStates(store, account, set.querySetId),
        settings.backfill_runs,
      ),
    ),
  );
  return due.map((item) => ({
    ...item,
    endpoints:
      item.snapshotId === undefined
        ? [...REQUIRED_ENDPOINTS]
        : endpointsToFetch(store, item.snapshotId, maxAttempts),
  }));
}
