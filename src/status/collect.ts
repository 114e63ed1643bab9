import { budgetKeyFor } from '../config/budget-key.js';
import type { Config } from '../config/schema.js';
import { claimScope } from '../outbox/claim-scope.js';
import { unclaimedDeliveries } from '../outbox/reads.js';
import { scrubOrNull } from '../secrets.js';
import { getAccount } from '../store/accounts.js';
import { driftedEndpoints } from '../store/payloads.js';
import { listQuerySets, listRuns, type QuerySetRow } from '../store/query-sets.js';
import { countRequestsSince } from '../store/request-log.js';
import { isReportable } from '../store/snapshot-state.js';
import { snapshotStates } from '../store/snapshots.js';
import type { Store } from '../store/sql.js';
import { lastFinishedSyncRun } from '../store/sync-runs.js';
import { type ClusterView, collectCluster } from './cluster.js';

/**
 * What the store holds, per account and query set, and the daemons sharing it: read without calling
 * the API (it must work when the API or the credential does not). `reportd status` prints it, the
 * status page shows it.
 */

export interface SetStatus {
  id: number;
  name: string;
  state: 'active' | 'gone';
  runsKnown: number;
  /** Snapshots stored with all 34 valid payloads. */
  complete: number;
  /**
   * Snapshots whose failing payloads used up `max_payload_retries`: reported anyway, with "Data
   * unavailable" for the endpoints in `drifted`.
   */
  settled: number;
  /** Snapshots started but not reportable yet (still pending, or a payload failed and will be retried). */
  partial: number;
  /** Endpoints with a stored payload that failed its schema (the API drifted there). */
  drifted: string[];
  /** Due runs (the newest `backfill_runs`) that have no snapshot yet. */
  missing: number;
  lastError: string | null;
  /** The newest run with a reportable (complete or settled) snapshot: what `reportd render --set ID` renders by default. */
  latestComplete: { runId: number; label: string } | null;
}

export interface AccountStatus {
  name: string;
  lastSyncAt: string | null;
  lastError: string | null;
  budget: { used: number; requests: number; windowSeconds: number };
  sets: SetStatus[];
}

export interface StatusReport {
  store: string;
  lastSync: { finishedAt: string | null; outcome: string; error: string | null } | null;
  accounts: AccountStatus[];
  /** The daemons on this store: each instance, the slots it ran, the leases it holds. */
  cluster: ClusterView;
  /**
   * Due outbox rows of reports, alerts or destinations this config does not have: a daemon with
   * this config never claims them. On a store shared by shards another config may; rows that stay
   * here long past `dueSince` are known to no running daemon (a report renamed or removed).
   */
  unclaimed?: { kind: string; name: string; destination: string; count: number; dueSince: string }[];
}

export async function collectStatus(
  store: Store,
  config: Pick<Config, 'accounts' | 'sync'> &
    Partial<Pick<Config, 'reports' | 'alerts' | 'channels' | 'smtp'>>,
  now: number,
): Promise<StatusReport> {
  const last = await lastFinishedSyncRun(store);
  // Accounts and sets are read one after another (plain loops, not map callbacks): every read is
  // awaited, and the report keeps the config's order.
  const accounts: AccountStatus[] = [];
  for (const account of config.accounts) {
    const row = await getAccount(store, account.name);
    const windowMs = account.rate_limit.window_seconds * 1000;
    const sets: SetStatus[] = [];
    for (const set of await listQuerySets(store, account.name)) {
      if (config.sync.query_sets !== 'all' && !config.sync.query_sets.includes(set.id)) continue;
      sets.push(await setStatus(store, account.name, set, config.sync.backfill_runs));
    }
    accounts.push({
      name: account.name,
      lastSyncAt: row?.last_sync_at ?? null,
      lastError: scrubOrNull(row?.last_error ?? null),
      budget: {
        used: await countRequestsSince(store, budgetKeyFor(account), now - windowMs),
        requests: account.rate_limit.requests,
        windowSeconds: account.rate_limit.window_seconds,
      },
      sets,
    });
  }
  return {
    store: store.location,
    // Errors are scrubbed again on the way out: rows written before the store's writers scrubbed.
    lastSync: last
      ? { finishedAt: last.finishedAt, outcome: last.outcome, error: scrubOrNull(last.error) }
      : null,
    accounts,
    cluster: await collectCluster(store, now),
    ...(config.reports ? { unclaimed: await unclaimed(store, config, now) } : {}),
  };
}

/** See `StatusReport.unclaimed`: the same scope a worker with this config claims by. */
async function unclaimed(
  store: Store,
  config: Partial<Pick<Config, 'reports' | 'alerts' | 'channels' | 'smtp'>>,
  now: number,
): Promise<NonNullable<StatusReport['unclaimed']>> {
  const channels = (config.channels ?? []).map((c) => c.name);
  const scope = claimScope({
    reports: config.reports ?? [],
    alerts: config.alerts ?? [],
    channels: new Set(channels),
    // As a worker of this config (runtime.ts): email notices with an smtp section, and its channels'.
    noticeDestinations: [...(config.smtp ? ['email'] : []), ...channels],
  });
  return (await unclaimedDeliveries(store, scope, now)).map((group) => ({
    kind: group.kind,
    name: group.report,
    destination: group.destination,
    count: group.count,
    dueSince: new Date(group.dueSince).toISOString(),
  }));
}

async function setStatus(
  store: Store,
  account: string,
  set: QuerySetRow,
  backfillRuns: number,
): Promise<SetStatus> {
  const runs = await listRuns(store, account, set.id);
  const states = await snapshotStates(store, account, set.id);
  const drifted = await driftedEndpoints(store, { account, querySetId: set.id });
  const all = [...states.values()];
  const due = runs.slice(0, backfillRuns);
  const latest = runs.find((run) => isReportable(states.get(run.id)?.state));
  return {
    id: set.id,
    name: set.name,
    state: set.state,
    runsKnown: runs.length,
    complete: all.filter((s) => s.state === 'complete').length,
    settled: all.filter((s) => s.state === 'settled').length,
    partial: all.filter((s) => !isReportable(s.state)).length,
    drifted: drifted.map((d) => d.endpoint),
    missing: due.filter((run) => !states.has(run.id)).length,
    lastError: scrubOrNull(set.last_error),
    latestComplete: latest ? { runId: latest.id, label: latest.display_name } : null,
  };
}
