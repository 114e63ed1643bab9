import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Lifecycle } from '../schedule/lifecycle.js';
import type { SlotReason } from '../store/job-slots.js';
import { recordJobEnd, recordJobStart } from '../store/job-state.js';
import type { Store } from '../store/sql.js';
import { lostClaimMessage, type SlotClaims, type SlotHold } from './slot-claims.js';

/**
 * The scheduler's jobs and how one run of a job goes (scheduler.ts decides when): never two runs of
 * a job at once in this process, the slot claimed first when it has a key, the run's start and end
 * recorded in `job_state`, the claim finished with the outcome.
 */

export interface JobContext {
  /** The slot this run is for (the cron instant), or the start time for catch-up and `runNow`. */
  slot: number;
  reason: 'schedule' | 'catch-up' | 'takeover' | 'start' | 'manual';
  signal: AbortSignal;
}

export interface JobDefinition {
  name: string;
  /** Absent for trigger-only jobs. */
  cron?: string;
  /** IANA timezone the cron is read in (default UTC). */
  timezone?: string;
  /** Also run once at start-up (the sync: /readyz and the reports want fresh data). */
  runAtStart?: boolean;
  /** Active window and `max_delay` (config `lifecycleFields`); default always active, no limit. */
  lifecycle?: Lifecycle;
  /** The daemon role the job belongs to, as /readyz names it (default `scheduler`). */
  role?: string;
  /**
   * A run that throws is not recorded as a failed slot but handed to the loop, which backs off and
   * runs the slot again as a missed one (the report jobs: an enqueue fails only when the store does,
   * and enqueueing twice is harmless).
   */
  retryOnError?: boolean;
  run(context: JobContext): Promise<void>;
}

/** A job as the scheduler holds it: its run in progress, the one queued after it, a peer's claim it watches. */
export interface JobSlot {
  def: JobDefinition;
  cron?: string;
  running?: Promise<boolean>;
  again?: Promise<boolean>;
  /** A slot a peer claimed and has not finished: taken over if its lease lapses. */
  watch?: { slot: number; until: number };
}

/** Runs the scheduler's jobs, one run of a job at a time (see scheduler.ts's "No overlap"). */
export class JobRuns {
  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      logger: Logger;
      claims: SlotClaims;
      /** The scheduler's: aborted when it closes. */
      signal: AbortSignal;
    },
  ) {}

  /**
   * Runs the job unless it runs here already. Resolves false when a peer has the slot (`claimKey`
   * names the slot to claim first; without it nothing is claimed).
   */
  exclusive(
    job: JobSlot,
    slot: number,
    reason: JobContext['reason'],
    recordSlot: boolean,
    claimKey?: number,
  ): Promise<boolean> {
    if (job.running) {
      if (reason === 'schedule' || reason === 'takeover') {
        // Left unclaimed, so a daemon that is free can run it.
        this.deps.logger.warn({ job: job.def.name }, 'slot skipped: the previous run is still going');
        return job.running;
      }
      job.again ??= job.running.then((): Promise<boolean> => {
        job.again = undefined;
        return this.exclusive(job, this.deps.clock.now(), reason, recordSlot, claimKey);
      });
      return job.again;
    }
    const run = this.fire(job, slot, reason, recordSlot, claimKey).finally(() => {
      job.running = undefined;
    });
    job.running = run;
    return run;
  }

  private async fire(
    job: JobSlot,
    slot: number,
    reason: JobContext['reason'],
    recordSlot: boolean,
    claimKey: number | undefined,
  ): Promise<boolean> {
    const { store } = this.deps;
    const { name } = job.def;
    const { signal } = this.deps;
    if (signal.aborted) return true;
    const log = this.deps.logger.child({ job: name, reason, slot: new Date(slot).toISOString() });
    let hold: SlotHold | undefined;
    if (claimKey !== undefined) {
      // Only the three slot reasons ever come with a key (start-up and manual runs claim nothing).
      const claimReason: SlotReason = reason === 'catch-up' || reason === 'takeover' ? reason : 'schedule';
      const claim = await this.deps.claims.claim(name, claimKey, claimReason);
      if (!claim.won) {
        log.info({ instance: claim.held.instance }, lostClaimMessage(claim.held, claim.busy));
        if (claim.held.finished_at === null && claim.held.slot_at === claimKey) {
          job.watch = { slot: claimKey, until: claim.held.lease_until };
        }
        return false;
      }
      hold = claim.hold;
    }
    try {
      await recordJobStart(store, name, this.deps.clock.now());
      log.info('job started');
      await this.runAndRecord(job, slot, reason, recordSlot, hold, log);
    } catch (error) {
      // The store failed under the run's bookkeeping (or a `retryOnError` job): the slot is left
      // unfinished for the loop's catch-up, and its lease stops being renewed (best effort: the
      // store may not take even that write; the lease then lapses on its own).
      await hold?.finish('interrupted').catch(() => {});
      throw error;
    }
    return true;
  }

  private async runAndRecord(
    job: JobSlot,
    slot: number,
    reason: JobContext['reason'],
    recordSlot: boolean,
    hold: SlotHold | undefined,
    log: Logger,
  ): Promise<void> {
    const { store } = this.deps;
    const { name } = job.def;
    const { signal } = this.deps;
    let failure: unknown;
    try {
      await job.def.run({ slot, reason, signal });
    } catch (error) {
      failure = error;
    }
    if (failure !== undefined && signal.aborted) {
      await hold?.finish('interrupted').catch(() => {});
      log.warn('job interrupted by shutdown; it runs again at the next start');
      return;
    }
    // Thrown to the loop, which backs off and runs the slot again as a missed one.
    if (failure !== undefined && job.def.retryOnError) throw failure;
    const message = failure === undefined ? undefined : ((failure as Error).message ?? String(failure));
    await recordJobEnd(store, name, {
      at: this.deps.clock.now(),
      slot: recordSlot ? slot : undefined,
      outcome: failure === undefined ? 'ok' : 'failed',
      ...(message === undefined ? {} : { error: message }),
    });
    if (failure === undefined) {
      await hold?.finish('ok');
      log.info('job finished');
    } else {
      await hold?.finish('failed', message);
      log.error({ err: failure }, 'job failed');
    }
  }
}
