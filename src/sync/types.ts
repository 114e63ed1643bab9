/**
 * The shapes the sync shares with its callers (CLI, daemon, bench). Account and settings mirror the
 * config keys (snake_case, as in the YAML) so a loaded `Config` can be passed as is.
 */

export interface SyncAccount {
  name: string;
  base_url: string;
  api_key: string;
  /** Resolved secret (the config loader reads `api_secret_file` into it). */
  api_secret: string;
  rate_limit: { requests: number; window_seconds: number };
  /** Requests in flight at once for this account. */
  concurrency: number;
  timeout_seconds: number;
}

export interface SyncSettings {
  query_sets: 'all' | readonly number[];
  /** The newest N published runs of each set are kept as snapshots. */
  backfill_runs: number;
  catalog_ttl_minutes: number;
  /** Later passes re-fetch a payload that failed validation at most this many more times. */
  max_payload_retries: number;
  /** Largest API answer read, in megabytes (absent: 32, the config default). */
  max_payload_mb?: number;
}

/** Something that kept this pass from storing everything due. */
export interface SyncIssue {
  account: string;
  /**
   * `not_authorized` stopped the account; `invalid_payload` was stored raw; `request_failed` is a
   * request that failed after its retries (transient, -3, -145); `catalog` a discovery call that did.
   */
  kind: 'not_authorized' | 'invalid_payload' | 'request_failed' | 'catalog' | 'internal';
  querySetId?: number;
  runId?: number;
  endpoint?: string;
  /** One line, ready for a person: `account acme: not authorized (GET /brands/list)`. */
  message: string;
}

export interface SyncProgress {
  phase: 'discover' | 'fetch' | 'done';
  /** The account whose event this is (progress counts are across all accounts). */
  account: string;
  snapshotsDone: number;
  snapshotsTotal: number;
  payloadsDone: number;
  payloadsTotal: number;
  /** HTTP attempts made so far in this pass, every endpoint and retry included. */
  requests: number;
  /** Least time the rate budgets allow for the payloads still to fetch; null before planning. */
  etaMs: number | null;
}

/** A run whose snapshot a pass completed. */
export interface CompletedRun {
  account: string;
  querySetId: number;
  runId: number;
}

export interface SyncSummary {
  /** Accounts synced in this pass. */
  accounts: number;
  /** Snapshots that became complete in this pass. */
  snapshotsCompleted: number;
  /** Their runs: what follows the pass checks their figures (daemon/after-pass.ts). */
  completedRuns: CompletedRun[];
  /** Snapshots the plan said were due (the newest `backfill_runs` runs lacking a complete snapshot). */
  snapshotsDue: number;
  /** Due snapshots still not complete at the end (partial, failed or not reached). */
  snapshotsIncomplete: number;
  requests: number;
  metricRequests: number;
  /** -145 answers (each costs a window wait; should be 0 when the budget matches the server). */
  rateLimited: number;
  errors: SyncIssue[];
  /** Sets that answered -132 in this pass and are skipped from now on. */
  goneSets: { account: string; querySetId: number }[];
  /** True when the caller's signal stopped the pass (daemon shutdown). */
  aborted: boolean;
  durationMs: number;
}

/** How a pass ended, as `sync_runs` records it and the daemon's metrics count it. */
export function syncOutcome(summary: SyncSummary): 'ok' | 'incomplete' | 'failed' | 'aborted' {
  if (summary.aborted) return 'aborted';
  if (summary.errors.some((e) => e.kind === 'not_authorized' || e.kind === 'internal')) return 'failed';
  return summary.errors.length || summary.snapshotsIncomplete ? 'incomplete' : 'ok';
}

/** A pass that has done nothing yet: where `runSync` starts counting. */
export function emptySyncSummary(accounts: number): SyncSummary {
  return {
    accounts,
    snapshotsCompleted: 0,
    completedRuns: [],
    snapshotsDue: 0,
    snapshotsIncomplete: 0,
    requests: 0,
    metricRequests: 0,
    rateLimited: 0,
    errors: [],
    goneSets: [],
    aborted: false,
    durationMs: 0,
  };
}
