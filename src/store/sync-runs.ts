import { scrubOrNull } from '../secrets.js';
import type { Store } from './sql.js';

// Error text is scrubbed where it is written: it may quote a server's reply or an exception, and a
// stored secret would outlive a later rotation (reads only know the secrets registered by then).

/**
 * One row per sync pass (CLI or daemon), written at its start and end: the daemon's `history`
 * command and /readyz read it. A row left `running` means the process died in that pass.
 */

export type SyncOutcome = 'running' | 'ok' | 'incomplete' | 'failed' | 'aborted';

/** One sync pass as cli/ and daemon/ see it. Times are ISO 8601 text, as stored. */
export interface SyncRun {
  id: number;
  startedAt: string;
  finishedAt: string | null;
  outcome: SyncOutcome;
  /** HTTP requests of the pass, metric requests included. */
  requests: number;
  metricRequests: number;
  snapshotsCompleted: number;
  error: string | null;
}

/** The table's columns; never leave this file. */
interface SyncRunRow {
  id: number;
  started_at: string;
  finished_at: string | null;
  outcome: SyncOutcome;
  requests: number;
  metric_requests: number;
  snapshots_completed: number;
  error: string | null;
}

const iso = (at: number) => new Date(at).toISOString();

function toSyncRun(row: SyncRunRow): SyncRun {
  return {
    id: Number(row.id),
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    outcome: row.outcome,
    requests: Number(row.requests),
    metricRequests: Number(row.metric_requests),
    snapshotsCompleted: Number(row.snapshots_completed),
    error: row.error,
  };
}

export async function startSyncRun(store: Store, at: number): Promise<number> {
  const row = await store.get<{ id: number }>('INSERT INTO sync_runs (started_at) VALUES (?) RETURNING id', [
    iso(at),
  ]);
  return Number(row!.id);
}

export async function finishSyncRun(
  store: Store,
  id: number,
  result: {
    at: number;
    outcome: Exclude<SyncOutcome, 'running'>;
    requests: number;
    metricRequests: number;
    snapshotsCompleted: number;
    error: string | null;
  },
): Promise<void> {
  await store.run(
    `UPDATE sync_runs SET finished_at = ?, outcome = ?, requests = ?, metric_requests = ?,
       snapshots_completed = ?, error = ? WHERE id = ?`,
    [
      iso(result.at),
      result.outcome,
      result.requests,
      result.metricRequests,
      result.snapshotsCompleted,
      scrubOrNull(result.error),
      id,
    ],
  );
}

/** The newest passes first. */
export async function listSyncRuns(store: Store, limit = 20): Promise<SyncRun[]> {
  const rows = await store.all<SyncRunRow>('SELECT * FROM sync_runs ORDER BY id DESC LIMIT ?', [limit]);
  return rows.map(toSyncRun);
}

/** The newest pass that finished (any outcome), for readiness checks. */
export async function lastFinishedSyncRun(store: Store): Promise<SyncRun | undefined> {
  const row = await store.get<SyncRunRow>(
    `SELECT * FROM sync_runs WHERE outcome != 'running' ORDER BY id DESC LIMIT 1`,
  );
  return row ? toSyncRun(row) : undefined;
}
