import type { Store } from './sql.js';

/**
 * Cron slots claimed once across the daemons sharing a store (table job_slots, migration 015): the
 * rows as status, history and the scheduler read them. Claiming, renewing and finishing a slot are
 * the scheduler's leased writes (daemon/slot-lease.ts).
 */

export type SlotReason = 'schedule' | 'catch-up' | 'takeover';
export type SlotOutcome = 'ok' | 'failed' | 'skipped' | 'interrupted';

export interface JobSlotRow {
  job: string;
  slot_at: number;
  reason: SlotReason;
  instance: string;
  claimed_at: number;
  lease_until: number;
  finished_at: number | null;
  outcome: SlotOutcome | null;
  error: string | null;
  takeovers: number;
}

export const SLOT_COLUMNS =
  'job, slot_at, reason, instance, claimed_at, lease_until, finished_at, outcome, error, takeovers';

export function getJobSlot(store: Store, job: string, slotAt: number): Promise<JobSlotRow | undefined> {
  return store.get<JobSlotRow>(`SELECT ${SLOT_COLUMNS} FROM job_slots WHERE job = ? AND slot_at = ?`, [
    job,
    slotAt,
  ]);
}

/** The newest claims first (history, status, /readyz). */
export function listJobSlots(store: Store, limit: number): Promise<JobSlotRow[]> {
  return store.all<JobSlotRow>(
    `SELECT ${SLOT_COLUMNS} FROM job_slots ORDER BY claimed_at DESC, slot_at DESC LIMIT ?`,
    [limit],
  );
}

/** Every claim of `job`, oldest slot first (tests and the acceptance checks read this). */
export function jobSlotsOf(store: Store, job: string): Promise<JobSlotRow[]> {
  return store.all<JobSlotRow>(`SELECT ${SLOT_COLUMNS} FROM job_slots WHERE job = ? ORDER BY slot_at`, [job]);
}

/** Rows older than `before` go: one row per job and slot would otherwise grow without end. */
export async function pruneJobSlots(store: Store, before: number): Promise<number> {
  const { changes } = await store.run(
    'DELETE FROM job_slots WHERE claimed_at < ? AND finished_at IS NOT NULL',
    [before],
  );
  return changes;
}

/** The newest slot of `job` anyone claimed, or undefined. */
export async function latestClaimedSlot(store: Store, job: string): Promise<number | undefined> {
  const row = await store.get<{ slot_at: number | null }>(
    'SELECT MAX(slot_at) AS slot_at FROM job_slots WHERE job = ?',
    [job],
  );
  return row?.slot_at ?? undefined;
}
