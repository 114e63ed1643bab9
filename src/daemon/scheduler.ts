import { setMaxListeners } from 'node:events';
import { type Clock, systemClock } from '../clock.js';
import { type Logger, silentLogger } from '../log.js';
import { holderName as workerName } from '../queue/holder.js';
import { durationMs, type Lifecycle, latestSlot, nextSlot } from '../schedule/lifecycle.js';
import type { Store } from '../store/db.js';
import { getJobSlot, latestClaimedSlot, type SlotReason } from '../store/job-slots.js';
import { getJobState, initJobSlot, recordJobEnd, recordJobStart } from '../store/job-state.js';
import { recordSkippedSlots } from '../store/schedule-events.js';
import { SlotClaims as Claims, lostClaimMessage, type SlotClaims, type SlotHold } from './slot-claims.js';

/**
 * Runs the daemon's jobs: the sync on `sync.schedule`, cron reports in their own timezones, and
 * trigger-only jobs (`trigger: new_run`) that the daemon starts with `runNow`.
 *
 * Policies (they are what ops can rely on):
 * - **No overlap.** A job never runs twice at once. A slot that comes while the job still runs is
 *   skipped; a `runNow` while it runs is remembered and runs once right after.
 * - **Missed slots run once.** The last slot each job fired for is kept in SQLite (`job_state`). At
 *   start-up, a job with one or more slots missed while the daemon was down runs once (not once per
 *   missed slot): a report is about the latest data, so five catch-up copies would be noise. A job the
 *   store has never seen starts counting from now (a fresh install sends nothing at once).
 * - **Unless they are stale.** With `max_delay`, a job whose newest missed slot is older than that is
 *   not run at start-up: the skip is logged and kept as a `schedule_events` row (a Monday report sent
 *   on Thursday would mislead more than it informs).
 * - **Lifecycle.** A job only fires inside its `active_from`/`active_until` window; past the end its
 *   loop stops. Paused jobs (`enabled: false`) are not added at all (the daemon leaves them out).
 * - **Interrupted runs count as missed.** The slot is recorded when the run ends; a run cut by shutdown
 *   or a crash runs again at the next start. Jobs are idempotent (the outbox key, immutable snapshots).
 * - **Each slot once across daemons** (store/job-slots.ts). Daemons sharing a store all wake at each
 *   slot; the one whose claim of (job, slot) wins runs it, the others log who has it. No overlap holds
 *   across daemons too: a slot is not claimed while another daemon's run of the job holds a live claim.
 *   The start-up catch-up claims the newest missed slot, so it is decided once whichever daemon starts
 *   first, and the `max_delay` skip with it. A claim left unfinished when its lease lapsed (the daemon
 *   was kill -9'd) is taken over by a peer that lost that slot and watches it, or by the next start.
 *   Start-up runs (`runAtStart`: the sync) and `runNow` are per daemon and claim nothing: the sync's
 *   account leases already keep two daemons from fetching the same payloads.
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
  run(context: JobContext): Promise<void>;
}

interface JobSlot {
  def: JobDefinition;
  cron?: string;
  running?: Promise<boolean>;
  again?: Promise<boolean>;
  /** A slot a peer claimed and has not finished: taken over if its lease lapses. */
  watch?: { slot: number; until: number };
}

// setTimeout cannot wait longer than ~24.8 days; monthly and yearly crons sleep in steps.
const MAX_SLEEP_MS = 24 * 3_600_000;
const ALWAYS: Lifecycle = { enabled: true };

export class Scheduler {
  private readonly jobs = new Map<string, JobSlot>();
  private readonly abort = new AbortController();
  private readonly loops: Promise<void>[] = [];
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly claims: SlotClaims;
  private closing?: Promise<void>;

  constructor(
    private readonly options: {
      store: Store;
      clock?: Clock;
      logger?: Logger;
      /** The id slot claims carry: the daemon's instance id (default: a fresh `host:pid:random`). */
      instance?: string;
      /** How long a slot claim holds without renewal (ms, default 60 s). */
      slotLeaseMs?: number;
    },
  ) {
    this.clock = options.clock ?? systemClock;
    this.logger = (options.logger ?? silentLogger).child({ component: 'scheduler' });
    this.claims = new Claims({
      store: options.store,
      clock: this.clock,
      logger: this.logger,
      instance: options.instance ?? workerName(),
      leaseMs: options.slotLeaseMs,
    });
    // Every job's sleep and run listens on this one signal; more than 10 is expected, not a leak.
    setMaxListeners(0, this.abort.signal);
  }

  add(def: JobDefinition): void {
    if (this.jobs.has(def.name)) throw new Error(`job ${def.name} is defined twice`);
    this.jobs.set(def.name, { def, cron: def.cron });
  }

  /** Starts every cron loop (and the catch-up and start-up runs). Returns at once. */
  start(): void {
    for (const job of this.jobs.values()) {
      if (job.cron || job.def.runAtStart) this.loops.push(this.loop(job));
    }
  }

  /**
   * Runs a job now, respecting no-overlap: if it is running, one more run follows when it ends (calls
   * made meanwhile share that one run).
   */
  runNow(name: string, reason: JobContext['reason'] = 'manual'): Promise<void> {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`unknown job ${name}`);
    return this.exclusive(job, this.clock.now(), reason, false).then(() => undefined);
  }

  /** When each cron job fires next (for logs and tests). */
  nextRuns(): Record<string, string> {
    const now = this.clock.now();
    const out: Record<string, string> = {};
    for (const [name, job] of this.jobs) {
      const next =
        job.cron && nextSlot(job.cron, job.def.timezone ?? 'UTC', job.def.lifecycle ?? ALWAYS, now);
      if (next) out[name] = new Date(next).toISOString();
    }
    return out;
  }

  /** Stops sleeping loops and waits for runs in progress (they see the aborted signal). Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.abort.abort(new Error('scheduler closed'));
      await Promise.allSettled(this.loops);
      await Promise.allSettled([...this.jobs.values()].flatMap((j) => [j.running, j.again]));
    })();
    return this.closing;
  }

  private async loop(job: JobSlot): Promise<void> {
    const { store } = this.options;
    const { name, timezone = 'UTC', lifecycle = ALWAYS } = job.def;
    const signal = this.abort.signal;
    try {
      const started = this.clock.now();
      const state = await getJobState(store, name);
      const last = state?.last_slot_at;
      const firstMissed =
        job.cron && last != null ? nextSlot(job.cron, timezone, lifecycle, last) : undefined;
      let missed = firstMissed !== undefined && firstMissed <= started;
      // What the catch-up stands for, and the key its claim takes: the newest slot missed.
      const newest =
        missed && job.cron && last != null
          ? (latestSlot(job.cron, timezone, lifecycle, started, last) ?? firstMissed!)
          : undefined;
      if (missed && newest !== undefined && lifecycle.max_delay) {
        // Is any missed slot young enough? Only the newest one matters: it is the one that would run.
        if (started - newest > durationMs(lifecycle.max_delay)) {
          missed = false;
          await this.skipStale(name, firstMissed!, newest, started, lifecycle.max_delay);
        }
      }
      if (job.cron && last == null) await initJobSlot(store, name, started);
      let ran = false;
      if (missed) {
        this.logger.info({ job: name }, 'running once for slots missed while stopped');
        ran = (await this.exclusive(job, started, 'catch-up', true, newest)) !== false;
      }
      if (!ran && job.def.runAtStart) await this.exclusive(job, started, 'start', true);
      if (!job.cron) return;
      let cursor = this.clock.now();
      slots: while (!signal.aborted) {
        const slot = nextSlot(job.cron, timezone, lifecycle, cursor);
        if (slot === undefined) {
          this.logger.info(
            { job: name, activeUntil: lifecycle.active_until },
            'no slot left: past active_until',
          );
          return;
        }
        while (this.clock.now() < slot) {
          let wait = Math.min(slot - this.clock.now(), MAX_SLEEP_MS);
          if (job.watch) wait = Math.min(wait, Math.max(0, job.watch.until - this.clock.now() + 1));
          await this.clock.sleep(wait, signal);
          if (job.watch && this.clock.now() > job.watch.until && (await this.checkWatched(job))) {
            // A taken-over run may have outlasted the slot waited for: slots passed meanwhile are skipped.
            cursor = this.clock.now();
            continue slots;
          }
        }
        await this.exclusive(job, slot, 'schedule', true, slot);
        // Slots that passed during a long run are skipped, not queued.
        cursor = Math.max(slot, this.clock.now());
      }
    } catch (error) {
      if (!signal.aborted) this.logger.error({ job: name, err: error }, 'scheduler loop stopped');
    }
  }

  /**
   * The `max_delay` skip at start-up, decided once: the daemon whose claim of the newest missed slot
   * wins records it (and moves the slot reference past it); the others only log who decided.
   */
  private async skipStale(job: string, firstMissed: number, newest: number, at: number, maxDelay: string) {
    const claim = await this.claims.claim(job, newest, 'catch-up');
    if (!claim.won) {
      this.logger.info({ job, instance: claim.held.instance }, lostClaimMessage(claim.held, claim.busy));
      return;
    }
    const detail = `missed slots older than max_delay ${maxDelay} were not sent at start-up`;
    await recordSkippedSlots(this.options.store, { job, firstSlotAt: firstMissed, at, detail });
    await claim.hold.finish('skipped', detail);
    this.logger.warn({ job, firstMissed: new Date(firstMissed).toISOString() }, `slot skipped: ${detail}`);
  }

  /**
   * A peer's claim this daemon lost has outlived its lease: finished meanwhile (forget it), renewed
   * (wait again), superseded by a newer slot of the job (missed slots run once), or taken over here
   * (true: a run happened).
   */
  private async checkWatched(job: JobSlot): Promise<boolean> {
    const watch = job.watch!;
    const { name, lifecycle = ALWAYS } = job.def;
    const row = await getJobSlot(this.options.store, name, watch.slot);
    if (row && row.finished_at === null && row.lease_until >= this.clock.now()) {
      watch.until = row.lease_until;
      return false;
    }
    job.watch = undefined;
    if (!row || row.finished_at !== null) return false;
    if (((await latestClaimedSlot(this.options.store, name)) ?? watch.slot) > watch.slot) return false;
    if (lifecycle.max_delay && this.clock.now() - watch.slot > durationMs(lifecycle.max_delay)) return false;
    return this.exclusive(job, watch.slot, 'takeover', true, watch.slot);
  }

  /**
   * Runs the job unless it runs here already. Resolves false when a peer has the slot (`claimKey`
   * names the slot to claim first; without it nothing is claimed).
   */
  private exclusive(
    job: JobSlot,
    slot: number,
    reason: JobContext['reason'],
    recordSlot: boolean,
    claimKey?: number,
  ): Promise<boolean> {
    if (job.running) {
      if (reason === 'schedule' || reason === 'takeover') {
        // Left unclaimed, so a daemon that is free can run it.
        this.logger.warn({ job: job.def.name }, 'slot skipped: the previous run is still going');
        return job.running;
      }
      job.again ??= job.running.then((): Promise<boolean> => {
        job.again = undefined;
        return this.exclusive(job, this.clock.now(), reason, recordSlot, claimKey);
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
    const { store } = this.options;
    const { name } = job.def;
    const signal = this.abort.signal;
    if (signal.aborted) return true;
    const log = this.logger.child({ job: name, reason, slot: new Date(slot).toISOString() });
    let hold: SlotHold | undefined;
    if (claimKey !== undefined) {
      // Only the three slot reasons ever come with a key (start-up and manual runs claim nothing).
      const claimReason: SlotReason = reason === 'catch-up' || reason === 'takeover' ? reason : 'schedule';
      const claim = await this.claims.claim(name, claimKey, claimReason);
      if (!claim.won) {
        log.info({ instance: claim.held.instance }, lostClaimMessage(claim.held, claim.busy));
        if (claim.held.finished_at === null && claim.held.slot_at === claimKey) {
          job.watch = { slot: claimKey, until: claim.held.lease_until };
        }
        return false;
      }
      hold = claim.hold;
    }
    await recordJobStart(store, name, this.clock.now());
    log.info('job started');
    try {
      await job.def.run({ slot, reason, signal });
      await recordJobEnd(store, name, {
        at: this.clock.now(),
        slot: recordSlot ? slot : undefined,
        outcome: 'ok',
      });
      await hold?.finish('ok');
      log.info('job finished');
    } catch (error) {
      if (signal.aborted) {
        await hold?.finish('interrupted').catch(() => {});
        log.warn('job interrupted by shutdown; it runs again at the next start');
        return true;
      }
      const message = (error as Error).message ?? String(error);
      await recordJobEnd(store, name, {
        at: this.clock.now(),
        slot: recordSlot ? slot : undefined,
        outcome: 'failed',
        error: message,
      });
      await hold?.finish('failed', message);
      log.error({ err: error }, 'job failed');
    }
    return true;
  }
}
