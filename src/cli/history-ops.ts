import type { Config } from '../config/index.js';
import { scheduleZone } from '../config/recipient-schema.js';
import { listIncidents } from '../notify/incidents.js';
import { listNotices } from '../outbox/notices.js';
import { printable } from '../printable.js';
import { lifecycleState } from '../schedule/lifecycle.js';
import { scrub } from '../secrets.js';
import { clusterLines, collectCluster } from '../status/cluster.js';
import { listJobSlots } from '../store/job-slots.js';
import { listScheduleEvents } from '../store/schedule-events.js';
import type { Store } from '../store/sql.js';

/**
 * The ops part of `reportd history`: each report's lifecycle state (paused, active…), the slots
 * the scheduler skipped on purpose, the slots claimed and by which instance, the instances and the
 * leases each holds, and failure incidents with the state of their notices. Kept beside history.ts so the delivery and sync parts of that
 * command can change without touching this.
 */
const iso = (at: number) => new Date(at).toISOString();

export async function opsHistory(config: Config, store: Store, now: number, limit: number) {
  const schedules = config.reports.map((report) => ({
    report: report.name,
    state: lifecycleState(report, scheduleZone(report), now),
    schedule: report.schedule ? `${report.schedule.cron} ${report.schedule.timezone}` : 'trigger: new_run',
  }));
  const skipped = (await listScheduleEvents(store, limit)).map((e) => ({
    job: e.job,
    firstSlot: iso(e.first_slot_at),
    at: iso(e.at),
    detail: e.detail,
  }));
  // Each incident's notices are read in turn (not in a map callback), so every read is awaited.
  const incidents = [];
  for (const i of await listIncidents(store, limit)) {
    const notices = await listNotices(store, i.id);
    incidents.push({
      incident: i.key,
      kind: i.kind,
      state: i.clearedAt === null ? 'open' : 'cleared',
      openedAt: iso(i.openedAt),
      clearedAt: i.clearedAt === null ? null : iso(i.clearedAt),
      // Stored scrubbed; scrubbed again here like every stored text `history` shows.
      detail: scrub(i.detail),
      notices: notices.map((n) => ({
        kind: n.kind,
        destination: n.destination,
        state: n.state,
        attempts: n.attempts,
      })),
    });
  }
  // Who ran each slot: one row per (job, slot) however many daemons share the store.
  const slots = (await listJobSlots(store, limit)).map((s) => ({
    job: s.job,
    slot: iso(s.slot_at),
    reason: s.reason,
    instance: s.instance,
    claimedAt: iso(s.claimed_at),
    finishedAt: s.finished_at === null ? null : iso(s.finished_at),
    outcome: s.outcome ?? (s.lease_until >= now ? 'running' : 'abandoned'),
    takeovers: s.takeovers,
    error: s.error === null ? null : scrub(s.error),
  }));
  const cluster = await collectCluster(store, now);
  return { schedules, skipped, slots, cluster, incidents };
}

export function opsHistoryLines(view: Awaited<ReturnType<typeof opsHistory>>): string[] {
  const out = ['', 'Reports'];
  if (view.schedules.length === 0) out.push('  none configured');
  for (const s of view.schedules) {
    out.push(`  ${s.state.padEnd(9)} ${printable(s.report)}  ${printable(s.schedule)}`);
  }
  // Slots skipped for max_delay, and runs a report left unsent (require_likely_change), with why.
  out.push('', 'Skipped slots and runs (newest first)');
  if (view.skipped.length === 0) out.push('  none');
  for (const s of view.skipped) {
    out.push(`  ${s.at}  ${printable(s.job)}  from ${s.firstSlot}  ${printable(s.detail ?? '')}`);
  }
  out.push('', 'Slots claimed (newest first)');
  if (view.slots.length === 0) out.push('  none');
  for (const s of view.slots) {
    const again = s.takeovers > 0 ? ` (taken over ${s.takeovers}x)` : '';
    out.push(
      `  ${s.slot}  ${printable(s.job)}  ${s.reason.padEnd(8)} ${s.outcome.padEnd(11)} ${printable(s.instance)}${again}`,
    );
  }
  out.push('', ...clusterLines(view.cluster));
  out.push('', 'Incidents (newest first)');
  if (view.incidents.length === 0) out.push('  none');
  for (const i of view.incidents) {
    // Email reads as before; a channel's notice names the channel (one row per destination).
    const notices =
      i.notices
        .map(
          (n) =>
            `${n.kind} notice${n.destination === 'email' ? '' : ` to ${printable(n.destination)}`} ${n.state}`,
        )
        .join(', ') || 'nobody to notify';
    const when = i.clearedAt ? `${i.openedAt} → ${i.clearedAt}` : `${i.openedAt} → now`;
    out.push(
      `  ${i.state.padEnd(8)} ${printable(i.incident)}  ${when}  ${printable(i.detail)}  (${notices})`,
    );
  }
  return out;
}
