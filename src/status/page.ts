import type { Config, ReportConfig } from '../config/index.js';
import { readerLabel, readerOfRow } from '../config/recipient-names.js';
import { scheduleZone } from '../config/recipient-schema.js';
import { listOpenIncidents } from '../notify/incidents.js';
import { coverLabel } from '../outbox/digest-rows.js';
import { lastFinishedReaderRows, noticeLabel } from '../outbox/notices.js';
import { listDeliveries } from '../outbox/reads.js';
import type { Delivery } from '../outbox/row.js';
import { type LifecycleState, lifecycleState, nextSlot } from '../schedule/lifecycle.js';
import { formatInZone } from '../schedule/listing.js';
import { scrubOrNull } from '../secrets.js';
import { getJobState, type JobState } from '../store/job-state.js';
import type { Store } from '../store/sql.js';
import { conflictLines } from './cluster.js';
import { type AccountStatus, collectStatus, type StatusReport } from './collect.js';
import { latestFiles } from './downloads.js';
import { packagedPage } from './packaged-page.js';

/**
 * The status page (`GET /` of the daemon): what is configured, what the store holds, what went out.
 * Server-rendered from templates/status/page.hbs; Handlebars escapes every value, and set names,
 * run labels and errors (API and server text) are only ever values. The page has no script at all.
 */

const iso = (at: number | null | undefined) => (at == null ? null : new Date(at).toISOString());
const shortUtc = (at: number) => `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export interface StatusPageOptions {
  config: Config;
  store: Store;
  now: number;
  /** How many deliveries the page lists. */
  deliveries?: number;
}

export async function statusView({ config, store, now, deliveries = 15 }: StatusPageOptions) {
  const status = await collectStatus(store, config, now);
  const incidents = await listOpenIncidents(store);
  const refused = new Set(incidents.filter((i) => i.kind === 'credential_refused').map((i) => i.key));
  const recent = await listDeliveries(store, 200);
  // The job states are read first (one per report), so the rest stays a plain map.
  const jobs = await Promise.all(config.reports.map((report) => getJobState(store, `report:${report.name}`)));
  const shown = await listDeliveries(store, deliveries);
  const readers = await Promise.all(config.reports.map((report) => readerStates(store, report)));
  return {
    generatedAt: shortUtc(now),
    lastSync: status.lastSync,
    incidents: incidents.map((i) => ({
      kind: i.kind.replace('_', ' '),
      detail: scrubOrNull(i.detail),
      since: shortUtc(i.openedAt),
    })),
    accounts: status.accounts.map((account) => accountRow(account, refused)),
    reports: config.reports.map((report, index) =>
      reportRow({ config, report, index, job: jobs[index], recent, now, readers: readers[index] }),
    ),
    // The daemons on this store (src/status/cluster.ts): every value below is escaped by the template.
    instances: status.cluster.instances.map(instanceRow),
    otherHolders: status.cluster.others.map((o) => `${o.holder} holds ${o.kind} ${o.what}`),
    definitionConflicts: conflictLines(status.cluster),
    deliveries: shown.map((d) => deliveryRow(d, config)),
  };
}

/** An account with its credential's state (refused wins over its last sync) and its sets' snapshots. */
function accountRow(account: AccountStatus, refused: ReadonlySet<string>) {
  return {
    ...account,
    credential: refused.has(`credential:${account.name}`)
      ? 'refused'
      : account.lastSyncAt === null
        ? 'not checked yet'
        : account.lastError === null
          ? 'ok'
          : 'failing',
    sets: account.sets.map((set) => ({
      ...set,
      snapshots: `${set.complete} complete, ${set.partial} partial, ${set.missing} missing`,
    })),
  };
}

interface ReportRowInput {
  config: Config;
  report: ReportConfig;
  /** Its place in the config: the download links name it. */
  index: number;
  job: JobState | undefined;
  /** The latest deliveries, newest first: an unscheduled report's last fire is its last delivery. */
  recent: readonly Delivery[];
  now: number;
  /** A recipient table's readers by their newest finished delivery (`readerStates`). */
  readers: ReaderStates | undefined;
}

/** How many of a table's readers were last sent or failed, and the failed ones by name. */
interface ReaderStates {
  summary: string;
  failed: string[];
}

/** At most this many failed readers are named on the page; the rest are counted. */
const NAMED_FAILURES = 20;

/** Per reader of a recipient table: whether their newest finished delivery went out. */
async function readerStates(store: Store, report: ReportConfig): Promise<ReaderStates | undefined> {
  if (!report.recipients) return undefined;
  const rows = await lastFinishedReaderRows(store, report.name);
  const failed = rows.filter((row) => row.state === 'failed');
  const named = failed
    .slice(0, NAMED_FAILURES)
    .map(
      (row) =>
        `${readerLabel(report, row.destination) ?? row.destination}: ${scrubOrNull(row.lastError) ?? 'failed'}`,
    );
  if (failed.length > NAMED_FAILURES) named.push(`and ${failed.length - NAMED_FAILURES} more`);
  const waiting =
    report.recipients.length - rows.filter((row) => readerLabel(report, row.destination)).length;
  return {
    summary: `${report.recipients.length} readers: ${rows.length - failed.length} sent, ${failed.length} failed, ${Math.max(waiting, 0)} not sent yet`,
    failed: named,
  };
}

/** A report's schedule, its last and next fire, and the files it last wrote. */
function reportRow({ config, report, index, job, recent, now, readers }: ReportRowInput) {
  const timezone = scheduleZone(report);
  const state = lifecycleState(report, timezone, now);
  const lastDelivery = recent.find((d) => d.report === report.name);
  const lastFire = report.schedule ? job?.last_started_at : lastDelivery?.createdAt;
  return {
    name: report.name,
    readers,
    state,
    paused: state === 'paused',
    schedule: report.schedule ? `${report.schedule.cron} (${timezone})` : 'on each new run',
    lastFire: lastFire == null ? 'never' : shortUtc(lastFire),
    nextFire: nextFire(report, state, timezone, now),
    downloads: latestFiles(config.output.dir, report).map((file) => ({
      format: file.format.toUpperCase(),
      href: `/download/${index}/${file.format}`,
      name: file.name,
      at: shortUtc(file.modifiedAt),
    })),
  };
}

/** When a report fires next, in its own zone (and UTC beside it when that differs). */
function nextFire(report: ReportConfig, state: LifecycleState, timezone: string, now: number): string {
  if (state === 'paused') return 'paused';
  if (!report.schedule) return 'on the next new run';
  const next = nextSlot(report.schedule.cron, timezone, report, now);
  if (next === undefined) return 'none (past active_until)';
  return timezone === 'UTC' ? shortUtc(next) : `${formatInZone(next, timezone)} (${shortUtc(next)})`;
}

/** A daemon on this store: its roles, heartbeat, the slots it ran and what it holds. */
function instanceRow(i: StatusReport['cluster']['instances'][number]) {
  return {
    id: i.id,
    state: i.state,
    version: i.version,
    roles: i.roles.join(', '),
    heartbeat: `${shortUtc(Date.parse(i.heartbeatAt))} (${i.heartbeatAgeSeconds} s ago)${i.clockNote ? `; ${i.clockNote}` : ''}`,
    slots: i.slots.map((slot) => `${slot.job} ${slot.slot.slice(0, 16).replace('T', ' ')} ${slot.outcome}`),
    holds: [
      ...i.holds.accounts.map((a) => `account ${a}`),
      ...i.holds.deliveries.map((d) => `delivery ${d}`),
      ...i.holds.notices.map((n) => `notice ${n}`),
    ],
  };
}

function deliveryRow(d: Delivery, config: Pick<Config, 'reports'>) {
  const reader = readerOfRow(d, config.reports);
  return {
    report: d.kind === 'notice' ? noticeLabel(d) : reader ? `${d.report} for ${reader}` : d.report,
    /** A notice's set and run fields hold its incident and event: shown in its report cell instead. */
    notice: d.kind === 'notice',
    querySetId: d.querySetId,
    runId: d.runId,
    /** A digest's (set:run) list; absent for a per-set delivery. */
    covers: d.covers === null ? undefined : coverLabel(d),
    state: d.state,
    attempts: d.attempts,
    error: scrubOrNull(d.lastError),
    updatedAt: iso(d.updatedAt),
  };
}

export type StatusView = Awaited<ReturnType<typeof statusView>>;

/** The page's HTML, from templates/status/page.hbs (compiled once per process: it ships with reportd). */
export const renderStatusPage = packagedPage<StatusView>('status', 'page.hbs');
