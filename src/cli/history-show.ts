import type { Config } from '../config/index.js';
import { loadConfig } from '../config/load.js';
import { destinationsOfReader, readerOfRow } from '../config/recipient-names.js';
import { UsageError } from '../errors/index.js';
import { coveredRuns } from '../outbox/digest-rows.js';
import { noticeLabel } from '../outbox/notices.js';
import { type DeliveryFilter, listDeliveries } from '../outbox/reads.js';
import { type Recipient, recipientsOf } from '../outbox/recipients.js';
import type { Delivery } from '../outbox/row.js';
import { printable } from '../printable.js';
import { scrub, scrubOrNull } from '../secrets.js';
import { openStore } from '../store/db.js';
import { listJobStates } from '../store/job-state.js';
import { listSyncRuns, type SyncRun } from '../store/sync-runs.js';
import { type FilesFlags, showFiles } from './history-files.js';
import { opsHistory, opsHistoryLines } from './history-ops.js';
import type { ConfigOptions } from './options.js';

/** The flags of `reportd history` (declared in history.ts, which loads this file when it runs). */
export interface HistoryFlags extends ConfigOptions, FilesFlags {
  json?: boolean;
  limit: string;
  files?: boolean;
  report?: string;
}

/** `reportd history` when run (history.ts declares it, and loads this only then). */

const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());

/**
 * Stored text in the table: it may quote a server or the API, so terminal control characters go.
 * Secrets go too (again): the store's writers scrub, but `job_state` errors and rows written by an
 * older version were not.
 */
const shown = (text: string) => printable(scrub(text));

export async function showHistory(flags: HistoryFlags): Promise<void> {
  // Checked before anything is opened: `--limit 1e9`, `-5` or `ten` is a typo to point at, not
  // something to guess a meaning for (or to hand to SQLite as a huge or negative LIMIT).
  const limit = parseLimit(flags.limit);
  const config = loadConfig(flags.config);
  const store = await openStore(config.store, { mustExist: true });
  try {
    if (flags.files) return await showFiles(store, flags);
    const syncs = (await listSyncRuns(store, limit)).map(syncView);
    const rows = await listDeliveries(store, limit, deliveryFilter(flags, config));
    const recipients = await recipientsOf(
      store,
      rows.map((d) => d.id),
    );
    const deliveries = rows.map((d) => deliveryView(d, recipients.get(d.id) ?? [], config));
    const jobs = (await listJobStates(store)).map((job) => ({
      job: job.job,
      lastSlot: iso(job.last_slot_at),
      lastFinished: iso(job.last_finished_at),
      outcome: job.last_outcome,
      error: scrubOrNull(job.last_error),
    }));
    const ops = await opsHistory(config, store, Date.now(), limit);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ syncs, deliveries, jobs, ...ops }, null, 2)}\n`);
      return;
    }
    const out = [...syncLines(syncs), '', ...deliveryLines(deliveries), ...opsHistoryLines(ops)];
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await store.close();
  }
}

/**
 * `--report` and `--reader` on the deliveries: a reader is an address (their email rows and any row
 * that had them among its recipients) or a channel's name (its posts and a table's rows by it).
 */
function deliveryFilter(flags: HistoryFlags, config: Pick<Config, 'reports'>): DeliveryFilter {
  const reader = flags.reader?.trim();
  return {
    ...(flags.report === undefined ? {} : { report: flags.report }),
    ...(reader
      ? {
          reader: {
            // An address is no channel's name: its own rows are found by their recipients.
            destinations: [
              ...(reader.includes('@') ? [] : [reader]),
              ...destinationsOfReader(config.reports, reader),
            ],
            ...(reader.includes('@') ? { address: reader } : {}),
          },
        }
      : {}),
  };
}

function syncLines(syncs: readonly ReturnType<typeof syncView>[]): string[] {
  const out: string[] = ['Sync passes (newest first)'];
  if (syncs.length === 0) out.push('  none yet');
  for (const s of syncs) {
    out.push(
      `  ${s.started_at}  ${s.outcome.padEnd(10)} ${String(s.snapshots_completed).padStart(3)} snapshots  ` +
        `${String(s.requests).padStart(5)} requests${s.error ? `  ${shown(s.error)}` : ''}`,
    );
  }
  return out;
}

function deliveryLines(deliveries: readonly ReturnType<typeof deliveryView>[]): string[] {
  const out: string[] = ['Deliveries (most recently changed first)'];
  if (deliveries.length === 0) out.push('  none yet');
  for (const d of deliveries) {
    const again = d.generation > 0 ? ` (resend ${d.generation})` : '';
    if (d.notice) {
      // A notice's set and run columns hold its incident and event: named as such, not as a run.
      out.push(
        `  ${d.updatedAt}  ${d.state.padEnd(9)} ${shown(d.notice)}${again}  attempts ${d.attempts}${d.lastError ? `  ${shown(d.lastError)}` : ''}`,
      );
      continue;
    }
    out.push(
      `  ${d.updatedAt}  ${d.state.padEnd(9)} ${shown(d.report)}${d.reader ? ` for ${shown(d.reader)}` : d.destination === 'email' ? '' : ` → ${shown(d.destination)}`}  ${d.covers ? `digest ${d.covers.map((c) => `${c.querySetId}:${c.runId}`).join(',')}` : `set ${d.querySetId}  run ${d.runId}`}${again}  ` +
        `attempts ${d.attempts}${d.lastError ? `  ${shown(d.lastError)}` : ''}`,
    );
    // Who got it and who did not, one line per delivery (the reply only for those who did not).
    if (d.recipients.length) {
      const each = d.recipients.map((r) =>
        r.state === 'accepted'
          ? `${shown(r.recipient)} got it`
          : `${shown(r.recipient)} ${r.state}${r.reply ? ` (${shown(r.reply)})` : ''}`,
      );
      out.push(`      ${each.join(', ')}`);
    }
  }
  return out;
}

const MAX_LIMIT = 10_000;

function parseLimit(text: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1 || Number(text) > MAX_LIMIT) {
    throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LIMIT} (got "${printable(text)}")`);
  }
  return Number(text);
}

/**
 * A sync pass as `history --json` prints it. The snake_case names are the documented JSON contract
 * (they were the table's columns when it was first printed), so they are spelled out here rather
 * than following the domain type.
 */
function syncView(s: SyncRun) {
  return {
    id: s.id,
    started_at: s.startedAt,
    finished_at: s.finishedAt,
    outcome: s.outcome,
    requests: s.requests,
    metric_requests: s.metricRequests,
    snapshots_completed: s.snapshotsCompleted,
    error: scrubOrNull(s.error),
  };
}

function deliveryView(d: Delivery, recipients: readonly Recipient[], config: Pick<Config, 'reports'>) {
  // A recipient table's row: named by its reader (as the table has it now), not by `recipient:<id>`.
  const reader = readerOfRow(d, config.reports);
  return {
    id: d.id,
    kind: d.kind,
    /** A failure notice's incident and event in words (its set and run fields hold those numbers). */
    ...(d.kind === 'notice' ? { notice: noticeLabel(d) } : {}),
    report: d.report,
    destination: d.destination,
    ...(reader ? { reader } : {}),
    account: d.account,
    querySetId: d.querySetId,
    runId: d.runId,
    /** A digest's (set, run) list; absent for a per-set delivery (whose set and run are above). */
    covers: coveredRuns(d),
    generation: d.generation,
    state: d.state,
    attempts: d.attempts,
    lastError: scrubOrNull(d.lastError),
    messageId: d.messageId,
    createdAt: iso(d.createdAt)!,
    updatedAt: iso(d.updatedAt)!,
    sentAt: iso(d.sentAt),
    recipients: recipients.map((r) => ({
      recipient: r.recipient,
      state: r.state,
      reply: scrubOrNull(r.reply),
    })),
  };
}
