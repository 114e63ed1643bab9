import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { isHolderGone } from '../queue/holder.js';
import { startHeartbeat } from '../queue/lease.js';
import type { JobSlotRow, SlotOutcome, SlotReason } from '../store/job-slots.js';
import type { Store } from '../store/sql.js';
import { type ClaimResult, claimJobSlot, finishJobSlot, renewJobSlot } from './slot-lease.js';

/**
 * The scheduler's side of its slot leases (slot-lease.ts): claim a slot for this instance, keep the lease renewed
 * while the job runs, end it with the outcome. The renewal runs on the scheduler's clock, so a run on
 * a fake clock keeps its lease exactly as long as it runs.
 */

/** How long a claim holds without renewal (ms): about how long a kill -9'd daemon's slot waits. */
export const SLOT_LEASE_MS = 60_000;

export interface SlotHold {
  /** Stops renewing and records how the run ended (`interrupted` leaves it for the next catch-up). */
  finish(outcome: SlotOutcome, error?: string): Promise<void>;
}

export type SlotClaim = { won: true; hold: SlotHold } | { won: false; held: JobSlotRow; busy: boolean };

export class SlotClaims {
  constructor(
    private readonly options: {
      store: Store;
      clock: Clock;
      logger: Logger;
      instance: string;
      leaseMs?: number;
    },
  ) {}

  get instance(): string {
    return this.options.instance;
  }

  get leaseMs(): number {
    return this.options.leaseMs ?? SLOT_LEASE_MS;
  }

  async claim(job: string, slotAt: number, reason: SlotReason): Promise<SlotClaim> {
    const { store, clock, instance } = this.options;
    const result: ClaimResult = await claimJobSlot(store, {
      job,
      slotAt,
      reason,
      instance,
      now: clock.now(),
      leaseMs: this.leaseMs,
      isGone: isHolderGone,
    });
    if (!result.won) return result;
    if (result.takeover) {
      this.options.logger.warn(
        { job, slot: new Date(slotAt).toISOString() },
        'took over a slot whose daemon stopped renewing its claim',
      );
    }
    return { won: true, hold: this.hold(job, slotAt) };
  }

  private hold(job: string, slotAt: number): SlotHold {
    const { store, clock, logger, instance } = this.options;
    const key = { job, slotAt, instance };
    const heartbeat = startHeartbeat({
      clock,
      leaseMs: this.leaseMs,
      renew: () => renewJobSlot(store, key, clock.now() + this.leaseMs),
      onGiveUp: () =>
        logger.warn({ job }, 'lost the slot claim while running (this daemon stalled past its lease)'),
      // The store refused the write: try again next time; the lease covers three attempts.
      onError: (error) => logger.warn({ err: error, job }, 'could not renew the slot claim'),
    });
    return {
      async finish(outcome, error) {
        await heartbeat.stop();
        await finishJobSlot(store, key, { at: clock.now(), outcome, error });
      },
    };
  }
}

/** The log line of a lost claim: who has the slot, and whether it already ran. */
export function lostClaimMessage(held: JobSlotRow, busy: boolean): string {
  if (busy) return `slot skipped: the previous run is still going on instance ${held.instance}`;
  if (held.finished_at !== null)
    return `slot skipped: instance ${held.instance} already ran it (${held.outcome})`;
  return `slot skipped: instance ${held.instance} has claimed it`;
}
