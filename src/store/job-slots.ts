import { scrubOrNull } from '../secrets.js';
import type { Store } from './sql.js';

/**
 * Cron slots claimed once across the daemons sharing a store (table job_slots, migration 015). A
 * claim is one conditional upsert on the (job, slot_at) key: of several daemons claiming one slot
 * exactly one sees `changes === 1`, on SQLite and PostgreSQL alike. The winner renews its lease while
 * the job runs and finishes the row at the end; a row left unfinished with a lapsed lease (its daemon
 * died) is taken by the next claim of the same key.
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

export type ClaimResult =
  | { won: true; takeover: boolean }
  /** `held`: the row as it stands (who has it, whether it finished); `busy`: the job's other slot still running. */
  | { won: false; held: JobSlotRow; busy: boolean };

const COLUMNS =
  'job, slot_at, reason, instance, claimed_at, lease_until, finished_at, outcome, error, takeovers';

export function getJobSlot(store: Store, job: string, slotAt: number): Promise<JobSlotRow | undefined> {
  return store.get<JobSlotRow>(`SELECT ${COLUMNS} FROM job_slots WHERE job = ? AND slot_at = ?`, [
    job,
    slotAt,
  ]);
}

/**
 * Claims (job, slot) for `instance` until `now + leaseMs`. Wins when nobody claimed the slot yet, or
 * when the claim there is unfinished and its lease lapsed, or its holder is `isGone` (a dead process
 * on this host: no need to wait for the lease). Loses, without writing, when the slot is claimed, or
 * when another slot of the same job is still running (no overlap across daemons either).
 */
export function claimJobSlot(
  store: Store,
  claim: {
    job: string;
    slotAt: number;
    reason: SlotReason;
    instance: string;
    now: number;
    leaseMs: number;
    isGone?: (instance: string) => boolean;
  },
): Promise<ClaimResult> {
  const { job, slotAt, instance, now, leaseMs } = claim;
  // Read-then-write in one step across processes: the lock on PostgreSQL, BEGIN IMMEDIATE on SQLite.
  return store.transaction(
    async () => {
      const running = await store.get<JobSlotRow>(
        `SELECT ${COLUMNS} FROM job_slots
         WHERE job = ? AND slot_at <> ? AND finished_at IS NULL AND lease_until >= ? AND instance <> ?
         ORDER BY slot_at DESC LIMIT 1`,
        [job, slotAt, now, instance],
      );
      if (running && !claim.isGone?.(running.instance)) {
        return { won: false as const, held: running, busy: true };
      }
      const existing = await getJobSlot(store, job, slotAt);
      if (!existing) {
        await store.run(
          `INSERT INTO job_slots (job, slot_at, reason, instance, claimed_at, lease_until)
           VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (job, slot_at) DO NOTHING`,
          [job, slotAt, claim.reason, instance, now, now + leaseMs],
        );
        return { won: true as const, takeover: false };
      }
      const free =
        existing.finished_at === null &&
        (existing.lease_until < now || existing.instance === instance || !!claim.isGone?.(existing.instance));
      if (!free) return { won: false as const, held: existing, busy: false };
      // Conditional on the holder read above, so the write cannot take a claim renewed meanwhile.
      const { changes } = await store.run(
        `UPDATE job_slots SET instance = ?, reason = ?, claimed_at = ?, lease_until = ?, outcome = NULL,
           error = NULL, takeovers = takeovers + 1
         WHERE job = ? AND slot_at = ? AND instance = ? AND lease_until = ? AND finished_at IS NULL`,
        [instance, claim.reason, now, now + leaseMs, job, slotAt, existing.instance, existing.lease_until],
      );
      if (changes !== 1) return { won: false as const, held: existing, busy: false };
      return { won: true as const, takeover: existing.instance !== instance };
    },
    { lock: `reportd:job-slot:${job}` },
  );
}

/** Pushes the lease forward; false when the claim is no longer this instance's (taken over). */
export async function renewJobSlot(
  store: Store,
  key: { job: string; slotAt: number; instance: string },
  leaseUntil: number,
): Promise<boolean> {
  const { changes } = await store.run(
    `UPDATE job_slots SET lease_until = ? WHERE job = ? AND slot_at = ? AND instance = ? AND finished_at IS NULL`,
    [leaseUntil, key.job, key.slotAt, key.instance],
  );
  return changes === 1;
}

/**
 * Ends the claim. `interrupted` (the daemon is stopping) leaves it unfinished with its lease ended
 * at `at`, so the next start's catch-up, on any daemon, may take it; every other outcome is final.
 */
export async function finishJobSlot(
  store: Store,
  key: { job: string; slotAt: number; instance: string },
  end: { at: number; outcome: SlotOutcome; error?: string | null },
): Promise<void> {
  const interrupted = end.outcome === 'interrupted';
  await store.run(
    `UPDATE job_slots SET finished_at = ?, outcome = ?, error = ?, lease_until = ?
     WHERE job = ? AND slot_at = ? AND instance = ? AND finished_at IS NULL`,
    [
      interrupted ? null : end.at,
      end.outcome,
      // Scrubbed as it is stored: the text may quote a secret.
      scrubOrNull(end.error ?? null),
      interrupted ? end.at - 1 : end.at,
      key.job,
      key.slotAt,
      key.instance,
    ],
  );
}

/** The newest claims first (history, status, /readyz). */
export function listJobSlots(store: Store, limit: number): Promise<JobSlotRow[]> {
  return store.all<JobSlotRow>(
    `SELECT ${COLUMNS} FROM job_slots ORDER BY claimed_at DESC, slot_at DESC LIMIT ?`,
    [limit],
  );
}

/** Every claim of `job`, oldest slot first (tests and the acceptance checks read this). */
export function jobSlotsOf(store: Store, job: string): Promise<JobSlotRow[]> {
  return store.all<JobSlotRow>(`SELECT ${COLUMNS} FROM job_slots WHERE job = ? ORDER BY slot_at`, [job]);
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
