import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Handlebars from 'handlebars';
import type { Config } from '../config/index.js';
import { PACKAGED_TEMPLATES_DIR } from '../report/templates.js';
import { lifecycleState, nextSlot } from '../schedule/lifecycle.js';
import { formatInZone } from '../schedule/listing.js';
import { scrubOrNull } from '../secrets.js';
import type { Store } from '../store/db.js';
import { listDeliveries } from '../store/deliveries.js';
import { coverLabel } from '../store/digest-deliveries.js';
import { listOpenIncidents, noticeLabel } from '../store/incidents.js';
import { getJobState } from '../store/job-state.js';
import { conflictLines } from './cluster.js';
import { collectStatus } from './collect.js';
import { latestFiles } from './downloads.js';

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
  const accounts = status.accounts.map((account) => ({
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
  }));
  const recent = await listDeliveries(store, 200);
  // The job states are read first (one per report), so the rest stays a plain map.
  const jobs = await Promise.all(config.reports.map((report) => getJobState(store, `report:${report.name}`)));
  const shown = await listDeliveries(store, deliveries);
  const reports = config.reports.map((report, index) => {
    const timezone = report.schedule?.timezone ?? 'UTC';
    const state = lifecycleState(report, timezone, now);
    const job = jobs[index];
    const lastDelivery = recent.find((d) => d.report === report.name);
    const lastFire = report.schedule ? job?.last_started_at : lastDelivery?.createdAt;
    const next = report.schedule ? nextSlot(report.schedule.cron, timezone, report, now) : undefined;
    return {
      name: report.name,
      state,
      paused: state === 'paused',
      schedule: report.schedule ? `${report.schedule.cron} (${timezone})` : 'on each new run',
      lastFire: lastFire == null ? 'never' : shortUtc(lastFire),
      nextFire:
        state === 'paused'
          ? 'paused'
          : !report.schedule
            ? 'on the next new run'
            : next === undefined
              ? 'none (past active_until)'
              : timezone === 'UTC'
                ? shortUtc(next)
                : `${formatInZone(next, timezone)} (${shortUtc(next)})`,
      downloads: latestFiles(config.output.dir, report).map((file) => ({
        format: file.format.toUpperCase(),
        href: `/download/${index}/${file.format}`,
        name: file.name,
        at: shortUtc(file.modifiedAt),
      })),
    };
  });
  return {
    generatedAt: shortUtc(now),
    lastSync: status.lastSync,
    incidents: incidents.map((i) => ({
      kind: i.kind.replace('_', ' '),
      detail: scrubOrNull(i.detail),
      since: shortUtc(i.openedAt),
    })),
    accounts,
    reports,
    // The daemons on this store (src/status/cluster.ts): every value below is escaped by the template.
    instances: status.cluster.instances.map((i) => ({
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
    })),
    otherHolders: status.cluster.others.map((o) => `${o.holder} holds ${o.kind} ${o.what}`),
    definitionConflicts: conflictLines(status.cluster),
    deliveries: shown.map((d) => ({
      report: d.kind === 'notice' ? noticeLabel(d) : d.report,
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
    })),
  };
}

export type StatusView = Awaited<ReturnType<typeof statusView>>;

let compiled: Handlebars.TemplateDelegate<StatusView> | undefined;

/** The page's HTML. The template is compiled once per process (it ships with reportd). */
export function renderStatusPage(view: StatusView): string {
  compiled ??= Handlebars.create().compile<StatusView>(
    readFileSync(join(PACKAGED_TEMPLATES_DIR, 'status', 'page.hbs'), 'utf8'),
    { strict: false },
  );
  return compiled(view);
}
