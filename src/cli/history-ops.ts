import type { Config } from '../config/index.js';
import { printable } from '../printable.js';
import { lifecycleState } from '../schedule/lifecycle.js';
import { scrub } from '../secrets.js';
import type { Store } from '../store/db.js';
import { listIncidents, listNotices } from '../store/incidents.js';
import { listScheduleEvents } from '../store/schedule-events.js';

/**
 * The ops part of `reportd history`: each report's lifecycle state (paused, active…), the slots
 * the scheduler skipped on purpose, and failure incidents with the state of their notices. Kept beside history.ts so the delivery and sync parts of that
 * command can change without touching this.
 */
const iso = (at: number) => new Date(at).toISOString();

export async function opsHistory(config: Config, store: Store, now: number, limit: number) {
  const schedules = config.reports.map((report) => ({
    report: report.name,
    state: lifecycleState(report, report.schedule?.timezone ?? 'UTC', now),
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
  return { schedules, skipped, incidents };
}

export function opsHistoryLines(view: Awaited<ReturnType<typeof opsHistory>>): string[] {
  const out = ['', 'Reports'];
  if (view.schedules.length === 0) out.push('  none configured');
  for (const s of view.schedules) {
    out.push(`  ${s.state.padEnd(9)} ${printable(s.report)}  ${printable(s.schedule)}`);
  }
  out.push('', 'Skipped slots (newest first)');
  if (view.skipped.length === 0) out.push('  none');
  for (const s of view.skipped) {
    out.push(`  ${s.at}  ${printable(s.job)}  from ${s.firstSlot}  ${printable(s.detail ?? '')}`);
  }
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
