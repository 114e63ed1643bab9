import type { Command } from 'commander';
import { budgetKeyFor } from '../config/budget-key.js';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { claimScope } from '../delivery/claim-scope.js';
import { printable } from '../printable.js';
import { scrubOrNull } from '../secrets.js';
import { type ClusterView, clusterLines, collectCluster } from '../status/cluster.js';
import { getAccount } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import { openStore } from '../store/db.js';
import { storeClock } from '../store/db-clock.js';
import { unclaimedDeliveries } from '../store/deliveries.js';
import { driftedEndpoints, isReportable } from '../store/payloads.js';
import { listQuerySets, listRuns, type QuerySetRow } from '../store/query-sets.js';
import { countRequestsSince } from '../store/request-log.js';
import { snapshotStates } from '../store/snapshots.js';
import { lastFinishedSyncRun } from '../store/sync-runs.js';
import { type ConfigOptions, configOption } from './options.js';

/**
 * `reportd status`: what the store holds, per account and query set, without calling the API (it
 * must work when the API or the credential does not). `--json` prints the same as one object.
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

export function register(program: Command): void {
  program
    .command('status')
    .summary(
      'show what the store holds per account and query set (runs, snapshots, errors, budget) and the daemons sharing it',
    )
    .description(
      'What the store holds per account and query set (runs known, complete / settled / partial / missing ' +
        'snapshots, the latest complete or settled run — the default of `render`, endpoints whose answer ' +
        'drifted from its schema, last errors, rate budget in use), the daemons sharing the store (live, gone ' +
        'or stopped, last heartbeat, recent slots, leases held), and due outbox rows of reports, alerts or ' +
        'channels this config does not have (a daemon with this config never sends them: on a shared store ' +
        "another shard's config may; rows that stay there belong to a report no running config has). Never " +
        'calls the API.',
    )
    .addOption(configOption)
    .option('--json', 'print as JSON')
    .action(async (flags: ConfigOptions & { json?: boolean }) => {
      const config = loadConfig(flags.config);
      const store = await openStore(config.store, { mustExist: true });
      try {
        // Heartbeats and leases were written on the database's clock (store/db-clock.ts).
        const clock = await storeClock(store);
        clock.close();
        const report = await collectStatus(store, config, clock.now());
        process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatStatus(report));
      } finally {
        await store.close();
      }
    });
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

/**
 * The text form. Set names and run labels come from the API and errors from the store: every such
 * string goes through `printable`, so none can send the terminal an escape sequence (`--json` is
 * escaped by JSON itself).
 */
export function formatStatus(report: StatusReport): string {
  const lines = [`store ${printable(report.store)}`];
  const last = report.lastSync;
  lines.push(
    last
      ? `last sync ${last.finishedAt}: ${last.outcome}${last.error ? ` — ${printable(last.error)}` : ''}`
      : 'no sync has finished yet',
  );
  for (const account of report.accounts) {
    const { used, requests, windowSeconds } = account.budget;
    lines.push('');
    lines.push(
      `account ${printable(account.name)}: last sync ${account.lastSyncAt ?? 'never'}, ` +
        `budget ${used}/${requests} used in the last ${windowSeconds}s`,
    );
    if (account.lastError) lines.push(`  last error: ${printable(account.lastError)}`);
    if (account.sets.length === 0) {
      lines.push('  no query sets known yet (run reportd sync)');
      continue;
    }
    const header = [
      'set',
      'name',
      'state',
      'runs',
      'complete',
      'settled',
      'partial',
      'missing',
      'latest complete run',
      'last error',
    ];
    const rows = account.sets.map((set) => [
      String(set.id),
      printable(set.name),
      set.state,
      String(set.runsKnown),
      String(set.complete),
      String(set.settled),
      String(set.partial),
      String(set.missing),
      set.latestComplete ? `${set.latestComplete.runId} ${printable(set.latestComplete.label)}` : '-',
      printable(set.lastError ?? ''),
    ]);
    lines.push(...table([header, ...rows]).map((line) => `  ${line}`));
    for (const set of account.sets) {
      if (set.drifted.length === 0) continue;
      // Endpoint keys come from our own catalog, not from the API: safe to print as they are.
      lines.push(
        `  set ${set.id}: the API's answer drifted from its schema for ${set.drifted.join(', ')} (reported as "Data unavailable")`,
      );
    }
  }
  if (report.unclaimed && report.unclaimed.length > 0) {
    lines.push('');
    lines.push(
      'outbox rows this config cannot send (a daemon whose config has them sends them; none running has them if they stay):',
    );
    for (const group of report.unclaimed) {
      // Names come from the store (another config wrote them): printable, like the API's strings.
      lines.push(
        `  ${group.kind} ${printable(group.name)} → ${printable(group.destination)}: ${group.count} due since ${group.dueSince}`,
      );
    }
  }
  lines.push('', ...clusterLines(report.cluster));
  return `${lines.join('\n')}\n`;
}

/** Left-aligned columns; the last one is free-width (error messages). */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length)));
  return rows.map((row) =>
    row
      .map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd(widths[col]!)))
      .join('  ')
      .trimEnd(),
  );
}
