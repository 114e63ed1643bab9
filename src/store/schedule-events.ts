import { printable } from '../printable.js';
import type { Store } from './sql.js';

/** A slot the scheduler skipped on purpose (migration 008), for `history` and the status page. */
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

export function listScheduleEvents(store: Store, limit: number): Promise<ScheduleEvent[]> {
  return store.all<ScheduleEvent>('SELECT * FROM schedule_events ORDER BY at DESC, id DESC LIMIT ?', [limit]);
}
