import { setMaxListeners } from 'node:events';
import { type Clock, systemClock } from '../clock.js';
import { type Logger, silentLogger } from '../log.js';
import { holderName as workerName } from '../queue/holder.js';
import { durationMs, type Lifecycle, latestSlot, nextSlot } from '../schedule/lifecycle.js';
import { getJobSlot, latestClaimedSlot } from '../store/job-slots.js';
import { getJobState, initJobSlot } from '../store/job-state.js';
import { recordSkippedSlots } from '../store/schedule-events.js';
import type { Store } from '../store/sql.js';
import { type JobContext, type JobDefinition, JobRuns, type JobSlot } from './job-runs.js';
import { loopRetryMs, RoleHealth } from './role-health.js';
import { SlotClaims as Claims, lostClaimMessage, type SlotClaims } from './slot-claims.js';

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
 * - **No store error ends a loop.** A job's loop that throws (the store refused a read, a claim or a
 *   bookkeeping write: PostgreSQL restarting, SQLite locked by another process, a full disk) logs one
 *   line, waits `loopRetryMs` and starts over from the top: the slot whose claim failed is then a
 *   missed slot, run once when the store is back (and not at all past `max_delay`), like a slot
 *   missed while the daemon was down. The start-up run (`runAtStart`) runs again then too.
 */

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
  private readonly health: RoleHealth;
  private readonly runs: JobRuns;
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
      /** Where each job's loop reports its cycles (default: a private one, read by nobody). */
      health?: RoleHealth;
    },
  ) {
    this.clock = options.clock ?? systemClock;
    this.health = options.health ?? new RoleHealth(this.clock);
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
    this.runs = new JobRuns({
      store: options.store,
      clock: this.clock,
      logger: this.logger,
      claims: this.claims,
      signal: this.abort.signal,
    });
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
    return this.runs.exclusive(job, this.clock.now(), reason, false).then(() => undefined);
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

  /**
   * A job's loop, supervised: whatever `cycle` throws, the loop says so in one line, backs off and
   * starts the cycle over (see "No store error ends a loop" above). Only the scheduler's close ends it.
   */
  private async loop(job: JobSlot): Promise<void> {
    const { name, role = 'scheduler' } = job.def;
    const signal = this.abort.signal;
    let failures = 0;
    while (!signal.aborted) {
      try {
        await this.cycle(job, failures > 0);
        this.health.forget(name);
        return;
      } catch (error) {
        if (signal.aborted) return;
        failures++;
        // Never past the job's next slot: a slot is tried at its time, however long the backoff.
        const { cron, timezone = 'UTC', lifecycle = ALWAYS } = job.def;
        const now = this.clock.now();
        const next = cron ? nextSlot(cron, timezone, lifecycle, now) : undefined;
        const waitMs = Math.min(
          loopRetryMs(failures),
          next === undefined ? Number.POSITIVE_INFINITY : next - now,
        );
        const first = this.health.failed(name, role, error);
        // One line per failure, warn while it lasts: the first names the outage, the rest count it.
        this.logger[first ? 'error' : 'warn'](
          { job: name, err: messageOf(error), failures, retryInMs: waitMs },
          'job loop failed; retrying',
        );
        await this.clock.sleep(waitMs, signal).catch(() => {});
      }
    }
  }

  /** A job's loop, from the start-up catch-up on; `again`: starting over after a failure. */
  private async cycle(job: JobSlot, again: boolean): Promise<void> {
    const { store } = this.options;
    const { name, timezone = 'UTC', lifecycle = ALWAYS, role = 'scheduler' } = job.def;
    const signal = this.abort.signal;
    const recovered = () => {
      if (!this.health.isFailing(name)) return;
      this.logger.info({ job: name }, 'job loop recovered');
      this.health.completed(name, role);
    };
    {
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
      recovered();
      let ran = false;
      if (missed) {
        this.logger.info(
          { job: name },
          again
            ? 'running once for slots missed while the store failed'
            : 'running once for slots missed while stopped',
        );
        ran = (await this.runs.exclusive(job, started, 'catch-up', true, newest)) !== false;
      }
      if (!ran && job.def.runAtStart) await this.runs.exclusive(job, started, 'start', true);
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
        this.health.expect(name, role, slot);
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
        // The slot came: no deadline while it runs (a sync pass may rightly take many minutes).
        this.health.expect(name, role, undefined);
        await this.runs.exclusive(job, slot, 'schedule', true, slot);
        recovered();
        // Slots that passed during a long run are skipped, not queued.
        cursor = Math.max(slot, this.clock.now());
      }
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
    return this.runs.exclusive(job, watch.slot, 'takeover', true, watch.slot);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
