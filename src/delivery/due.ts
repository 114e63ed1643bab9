import type { RecipientRow } from '../config/recipient-fields.js';
import { readerText, recipientDestination, sliceText } from '../config/recipient-names.js';
import { rowZone } from '../config/recipient-schema.js';
import type { ReportConfig } from '../config/schema.js';
import { ConfigError } from '../errors/index.js';
import { coveredBefore, findDigest, pairKey } from '../outbox/digest-rows.js';
import { findDelivery } from '../outbox/reads.js';
import type { EnqueueResult } from '../outbox/row.js';
import { listQuerySets } from '../store/query-sets.js';
import { recordSkippedRun } from '../store/schedule-events.js';
import { findSnapshot } from '../store/snapshots.js';
import type { Store } from '../store/sql.js';
import { type LikelyChangeReport, withLikelyChange } from './likely-change.js';
import type { Outbox } from './outbox-worker.js';
import { sliceIssues } from './slice-check.js';

/**
 * Which (report, query set, run) rows are due. A report is about the newest complete run of each of
 * its sets: scheduled reports and `reportd deliver` take that run; `trigger: new_run` reports take
 * it only when it is newer than what they have already seen (src/daemon/new-runs.ts).
 */

/**
 * What the planner reads of a report's config: its sets (of its account), its `mode` (`digest`, the
 * default: one message across the sets; `per_set`: one per set and run), and what
 * `require_likely_change` reads (likely-change.ts).
 */
export type DueReport = Pick<ReportConfig, 'query_sets'> &
  Partial<Pick<ReportConfig, 'account' | 'mode'>> &
  LikelyChangeReport &
  /** One reader per row, each enqueued with their own slice (recipients.ts). */
  Partial<Pick<ReportConfig, 'recipients' | 'timezone'>>;

/** How an enqueue may be asked: `force` sends again (and past `require_likely_change`); `skipped` collects why runs were left out. */
export interface EnqueueOptions {
  force?: boolean;
  skipped?: string[];
  /** When the decision is made (epoch ms), for the `history` row of a skip. */
  now?: number;
  /** Only the rows whose slots are read in this zone (`schedule.timezone: recipient`). */
  zone?: string;
}

/**
 * The runs of `report` worth sending: all of them, unless `require_likely_change` leaves out those
 * without a likely change (recorded in `history`; `force` sends them anyway).
 */
export async function worthSending(
  store: Store,
  report: DueReport,
  runs: readonly LatestRun[],
  options: EnqueueOptions,
): Promise<LatestRun[]> {
  if (options.force) return [...runs];
  const filtered = await withLikelyChange(store, report, runs, {
    digest: report.mode !== 'per_set',
    now: options.now ?? Date.now(),
  });
  options.skipped?.push(...filtered.skipped);
  return filtered.runs;
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
 * What a due slot (a cron fire, `reportd deliver`) puts in the outbox: one digest of the newest runs
 * per destination of the report, or, with `mode: per_set`, one row per set and destination (see
 * `enqueueLatest`).
 */
export async function enqueueDue(
  outbox: Outbox,
  store: Store,
  report: DueReport,
  accounts: readonly { name: string }[],
  options: EnqueueOptions = {},
): Promise<EnqueueResult[]> {
  const { recipients } = report;
  if (recipients) return enqueueForReaders(outbox, store, { ...report, recipients }, accounts, options);
  if (report.mode === 'per_set') return enqueueLatest(outbox, store, report, accounts, options);
  const runs = await worthSending(store, report, await latestRuns(store, report, accounts), options);
  if (runs.length === 0) return [];
  return enqueueDigestOf(outbox, store, report.name, runs, options);
}

/**
 * The digest of `runs` for each destination of the report, when at least one of them was not
 * delivered there yet by this report (or `force`). A slot with nothing new gives the destination's
 * newest existing row (not created), so callers can say "already delivered"; a destination with none
 * (every run was sent per set before the switch to digest) gives nothing.
 */
export async function enqueueDigestOf(
  outbox: Outbox,
  store: Store,
  report: string,
  runs: readonly LatestRun[],
  options: { force?: boolean; destinations?: readonly string[] } = {},
): Promise<EnqueueResult[]> {
  const pairs = runs.map((r) => ({ account: r.account, querySetId: r.querySetId, runId: r.runId }));
  const only = runs.length === 1 ? runs[0] : undefined;
  const results: EnqueueResult[] = [];
  for (const destination of options.destinations ?? outbox.destinationsOf(report)) {
    const covered = await coveredBefore(store, report, undefined, destination);
    const fresh = runs.some((run) => !covered.has(pairKey(run)));
    // One set: the digest of one (set, run) is that run's per-set row, the same key as ever, so a
    // report over one set keeps its outbox rows, history and Message-IDs.
    const key = only && {
      report,
      destination,
      querySetId: only.querySetId,
      runId: only.runId,
      account: only.account,
    };
    if (fresh || options.force) {
      results.push(
        key
          ? await outbox.enqueue(key, { force: options.force })
          : await outbox.enqueueDigest(report, pairs, { force: options.force, destination }),
      );
      continue;
    }
    const same = key ? await findDelivery(store, key) : await findDigest(store, report, pairs, destination);
    if (same) results.push({ delivery: same, created: false });
  }
  return results;
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
  options: EnqueueOptions = {},
): Promise<EnqueueResult[]> {
  const results: EnqueueResult[] = [];
  for (const run of await worthSending(store, report, await latestRuns(store, report, accounts), options)) {
    results.push(
      ...(await outbox.enqueueAll(
        { report: report.name, querySetId: run.querySetId, runId: run.runId, account: run.account },
        options,
      )),
    );
  }
  return results;
}

/**
 * A report with `recipients`: each row enqueued on its own destination with the runs of its own
 * slice (and, with `require_likely_change`, judged on that slice alone). This is the slice filter:
 * a row's delivery covers only runs of its account and sets, so its render can read nothing else.
 * A row whose slice has no stored run is named in `history` and left out; the others go on.
 */
async function enqueueForReaders(
  outbox: Outbox,
  store: Store,
  report: DueReport & { recipients: readonly RecipientRow[] },
  accounts: readonly { name: string }[],
  options: EnqueueOptions,
): Promise<EnqueueResult[]> {
  // A table naming another account's set is refused whole, before any row is queued.
  const issues = await sliceIssues(store, report.recipients, accounts);
  if (issues.length > 0) throw new ConfigError(`the recipients of report "${report.name}"`, issues);
  const now = options.now ?? Date.now();
  const bySlice = new Map<string, Promise<LatestRun[]>>();
  const results: EnqueueResult[] = [];
  for (const row of report.recipients) {
    if (options.zone !== undefined && rowZone(report, row) !== options.zone) continue;
    const slice = { ...report, account: row.account, query_sets: row.query_sets, recipients: undefined };
    const key = sliceText(row);
    // Rows of one slice share its runs and its likely-change verdict: read and judged once.
    if (!bySlice.has(key))
      bySlice.set(
        key,
        latestRuns(store, slice, accounts).then((runs) => worthSending(store, slice, runs, options)),
      );
    const runs = await bySlice.get(key)!;
    const destination = recipientDestination(row);
    if (runs.length === 0) {
      const detail = `reader ${readerText(row)} (${row.at}): no stored run to send in slice ${key}`;
      options.skipped?.push(detail);
      await recordSkippedRun(store, { job: `report:${report.name}`, runAt: now, at: now, detail });
      continue;
    }
    if (report.mode !== 'per_set') {
      results.push(
        ...(await enqueueDigestOf(outbox, store, report.name, runs, {
          ...options,
          destinations: [destination],
        })),
      );
      continue;
    }
    for (const run of runs) {
      const runKey = {
        report: report.name,
        querySetId: run.querySetId,
        runId: run.runId,
        account: run.account,
      };
      results.push(await outbox.enqueue({ ...runKey, destination }, { force: options.force }));
    }
  }
  return results;
}
