import { claimKey, expression, type LeaseTable, releaseLease, renewLease } from '../queue/leased-rows.js';
import { scrubOrNull } from '../secrets.js';
import { type JobSlotRow, SLOT_COLUMNS, type SlotOutcome, type SlotReason } from '../store/job-slots.js';
import type { Store } from '../store/sql.js';

/**
 * Cron slots claimed once across the daemons sharing a store (table job_slots, migration 015). A
 * claim is one conditional upsert on the (job, slot_at) key: of several daemons claiming one slot
 * exactly one sees `changes === 1`, on SQLite and PostgreSQL alike. The winner renews its lease while
 * the job runs and finishes the row at the end; a row left unfinished with a lapsed lease (its daemon
 * died) is taken by the next claim of the same key. The claim, renewal and release are the queue's
 * leased rows (queue/leased-rows.ts); this file says what they mean for a slot.
 */

/** A slot is held by its `instance` until it finishes; the instance fences its writes. */
const SLOT_LEASE: LeaseTable = {
  name: 'job_slots',
  key: ['job', 'slot_at'],
  holder: 'instance',
  fence: 'instance',
  until: 'lease_until',
  held: 'finished_at IS NULL',
};

export type ClaimResult =
  | { won: true; takeover: boolean }
  /** `held`: the row as it stands (who has it, whether it finished); `busy`: the job's other slot still running. */
  | { won: false; held: JobSlotRow; busy: boolean };

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
  const { job, slotAt, instance, now } = claim;
  const gone = (holder: string) => claim.isGone?.(holder) ?? false;
  return claimKey<JobSlotRow & Record<string, unknown>, JobSlotRow>(store, SLOT_LEASE, {
    key: [job, slotAt],
    holder: instance,
    until: now + claim.leaseMs,
    lock: `reportd:job-slot:${job}`,
    // No overlap across daemons: another slot of the job still running loses this one unread.
    refuse: async () => {
      const running = await store.get<JobSlotRow>(
        `SELECT ${SLOT_COLUMNS} FROM job_slots
         WHERE job = ? AND slot_at <> ? AND finished_at IS NULL AND lease_until >= ? AND instance <> ?
         ORDER BY slot_at DESC LIMIT 1`,
        [job, slotAt, now, instance],
      );
      return running && !gone(running.instance) ? running : undefined;
    },
    free: (row) =>
      row.finished_at === null && (row.lease_until < now || row.instance === instance || gone(row.instance)),
    insert: [
      ['reason', claim.reason],
      ['claimed_at', now],
    ],
    takeover: [
      ['reason', claim.reason],
      ['claimed_at', now],
      ['outcome', null],
      ['error', null],
      ['takeovers', expression('takeovers + 1')],
    ],
  }).then((result): ClaimResult => {
    if (result.won) return result;
    if ('refused' in result) return { won: false, held: result.refused, busy: true };
    return { won: false, held: slotRow(result.row), busy: false };
  });
}

/** The row without what a claim's read adds (`SELECT *`: PostgreSQL's `rowid`). */
function slotRow(row: JobSlotRow): JobSlotRow {
  const { job, slot_at, reason, instance, claimed_at, lease_until, finished_at, outcome, error, takeovers } =
    row;
  return { job, slot_at, reason, instance, claimed_at, lease_until, finished_at, outcome, error, takeovers };
}

/** Pushes the lease forward; false when the claim is no longer this instance's (taken over). */
export function renewJobSlot(
  store: Store,
  key: { job: string; slotAt: number; instance: string },
  leaseUntil: number,
): Promise<boolean> {
  return renewLease(store, SLOT_LEASE, { key: [key.job, key.slotAt], token: key.instance }, leaseUntil);
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
  await releaseLease(
    store,
    SLOT_LEASE,
    { key: [key.job, key.slotAt], token: key.instance },
    [
      ['finished_at', interrupted ? null : end.at],
      ['outcome', end.outcome],
      // Scrubbed as it is stored: the text may quote a secret.
      ['error', scrubOrNull(end.error ?? null)],
    ],
    interrupted ? end.at - 1 : end.at,
  );
}
