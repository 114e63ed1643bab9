import { printable } from '../printable.js';
import type { Store } from './sql.js';

/**
 * A slot the scheduler skipped on purpose (migration 008), or a run a report left unsent on purpose
 * (`require_likely_change`), for `history` and the status page.
 */
export interface ScheduleEvent {
  id: number;
  job: string;
  kind: 'skipped';
  first_slot_at: number;
  at: number;
  detail: string | null;
}

/**
 * Records a skip and moves the job's slot reference past it in one transaction, so the next start-up
 * neither skips (and logs) the same slots again nor sends them.
 */
export function recordSkippedSlots(
  store: Store,
  skip: { job: string; firstSlotAt: number; at: number; detail: string },
): Promise<void> {
  return store.transaction(async () => {
    await store.run(
      `INSERT INTO schedule_events (job, kind, first_slot_at, at, detail) VALUES (?, 'skipped', ?, ?, ?)`,
      [skip.job, skip.firstSlotAt, skip.at, printable(skip.detail)],
    );
    await store.run(
      `INSERT INTO job_state (job, last_slot_at) VALUES (?, ?)
       ON CONFLICT (job) DO UPDATE SET last_slot_at = excluded.last_slot_at`,
      [skip.job, skip.at],
    );
  });
}

/**
 * Records a run a report did not send, and why (`first_slot_at` is the run's publication time). The
 * same reason for the same job is recorded once: a weekly slot that finds the same quiet run again
 * adds nothing new to `history`.
 */
export async function recordSkippedRun(
  store: Store,
  skip: { job: string; runAt: number; at: number; detail: string },
): Promise<void> {
  const detail = printable(skip.detail);
  const last = await store.get<{ detail: string | null }>(
    'SELECT detail FROM schedule_events WHERE job = ? ORDER BY at DESC, id DESC LIMIT 1',
    [skip.job],
  );
  if (last?.detail === detail) return;
  await store.run(
    `INSERT INTO schedule_events (job, kind, first_slot_at, at, detail) VALUES (?, 'skipped', ?, ?, ?)`,
    [skip.job, Number.isFinite(skip.runAt) ? skip.runAt : skip.at, skip.at, detail],
  );
}

export function listScheduleEvents(store: Store, limit: number): Promise<ScheduleEvent[]> {
  return store.all<ScheduleEvent>('SELECT * FROM schedule_events ORDER BY at DESC, id DESC LIMIT ?', [limit]);
}
