import type { Config } from '../config/index.js';
import { printable } from '../printable.js';
import { lifecycleState } from '../schedule/lifecycle.js';
import type { Store } from '../store/db.js';
import { listScheduleEvents } from '../store/schedule-events.js';

/**
 * The ops part of `reportd history`: each report's lifecycle state (paused, active…), and the slots
 * the scheduler skipped on purpose. Kept beside history.ts so the delivery and sync parts of that
 * command can change without touching this.
 */
const iso = (at: number) => new Date(at).toISOString();

export function opsHistory(config: Config, store: Store, now: number, limit: number) {
  const schedules = config.reports.map((report) => ({
    report: report.name,
    state: lifecycleState(report, report.schedule?.timezone ?? 'UTC', now),
    schedule: report.schedule ? `${report.schedule.cron} ${report.schedule.timezone}` : 'trigger: new_run',
  }));
  const skipped = listScheduleEvents(store, limit).map((e) => ({
    job: e.job,
    firstSlot: iso(e.first_slot_at),
    at: iso(e.at),
    detail: e.detail,
  }));
  return { schedules, skipped };
}

export function opsHistoryLines(view: ReturnType<typeof opsHistory>): string[] {
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
  return out;
}
