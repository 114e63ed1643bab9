import type { PublishedRun } from '../api/schemas/catalog.js';
import {
  endpointsToFetch,
  maxPayloadAttempts,
  REQUIRED_ENDPOINTS,
  settleSnapshot,
} from '../store/payloads.js';
import { newestRunFirst } from '../store/query-sets.js';
import { isReportable, type SnapshotState } from '../store/snapshot-state.js';
import { snapshotStates } from '../store/snapshots.js';
import type { Store } from '../store/sql.js';
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
    .filter((due) => !isReportable(due.state));
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
export async function planSnapshots(
  store: Store,
  account: string,
  sets: readonly DiscoveredSet[],
  settings: { backfill_runs: number; max_payload_retries: number },
  at: number,
): Promise<PlannedSnapshot[]> {
  const maxAttempts = maxPayloadAttempts(settings.max_payload_retries);
  const perSet: DueRun[][] = [];
  for (const set of sets) {
    const states = await snapshotStates(store, account, set.querySetId);
    perSet.push(dueRuns(set.querySetId, set.runs, states, settings.backfill_runs));
  }
  const due = orderDue(perSet);
  const planned: PlannedSnapshot[] = [];
  for (const item of due) {
    if (item.snapshotId === undefined) {
      planned.push({ ...item, endpoints: [...REQUIRED_ENDPOINTS] });
      continue;
    }
    const endpoints = await endpointsToFetch(store, item.snapshotId, maxAttempts);
    // Nothing left to try (retries used up before settling existed, or under a smaller
    // max_payload_retries): settle it now rather than plan it forever.
    if (endpoints.length === 0 && isReportable(await settleSnapshot(store, item.snapshotId, at, maxAttempts)))
      continue;
    planned.push({ ...item, endpoints });
  }
  return planned;
}
