import { setMaxListeners } from 'node:events';
import { type Clock, systemClock } from '../clock.js';
import { type Logger, silentLogger } from '../log.js';
import { durationMs, type Lifecycle, nextSlot } from '../schedule/lifecycle.js';
import type { Store } from '../store/db.js';
import { getJobState, initJobSlot, recordJobEnd, recordJobStart } from '../store/job-state.js';
import { recordSkippedSlots } from '../store/schedule-events.js';

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
 */

export interface JobContext {
  /** The slot this run is for (the cron instant), or the start time for catch-up and `runNow`. */
  slot: number;
  reason: 'schedule' | 'catch-up' | 'start' | 'manual';
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
  running?: Promise<void>;
  again?: Promise<void>;
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
  private closing?: Promise<void>;

  constructor(private readonly options: { store: Store; clock?: Clock; logger?: Logger }) {
    this.clock = options.clock ?? systemClock;
    this.logger = (options.logger ?? silentLogger).child({ component: 'scheduler' });
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
    return this.exclusive(job, this.clock.now(), reason, false);
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
      if (missed && job.cron && last != null && lifecycle.max_delay) {
        // Is any missed slot young enough? Only the newest one matters: it is the one that would run.
        const maxDelay = durationMs(lifecycle.max_delay);
        const recent = nextSlot(job.cron, timezone, lifecycle, Math.max(last, started - maxDelay - 1));
        if (recent === undefined || recent > started) {
          missed = false;
          const detail = `missed slots older than max_delay ${lifecycle.max_delay} were not sent at start-up`;
          await recordSkippedSlots(store, { job: name, firstSlotAt: firstMissed!, at: started, detail });
          this.logger.warn(
            { job: name, firstMissed: new Date(firstMissed!).toISOString() },
            `slot skipped: ${detail}`,
          );
        }
      }
      if (job.cron && last == null) await initJobSlot(store, name, started);
      if (missed || job.def.runAtStart) {
        if (missed) this.logger.info({ job: name }, 'running once for slots missed while stopped');
        await this.exclusive(job, started, missed ? 'catch-up' : 'start', true);
      }
      if (!job.cron) return;
      let cursor = this.clock.now();
      while (!signal.aborted) {
        const slot = nextSlot(job.cron, timezone, lifecycle, cursor);
        if (slot === undefined) {
          this.logger.info(
            { job: name, activeUntil: lifecycle.active_until },
            'no slot left: past active_until',
          );
          return;
        }
        while (this.clock.now() < slot) {
          await this.clock.sleep(Math.min(slot - this.clock.now(), MAX_SLEEP_MS), signal);
        }
        await this.exclusive(job, slot, 'schedule', true);
        // Slots that passed during a long run are skipped, not queued.
        cursor = Math.max(slot, this.clock.now());
      }
    } catch (error) {
      if (!signal.aborted) this.logger.error({ job: name, err: error }, 'scheduler loop stopped');
    }
  }

  private exclusive(
    job: JobSlot,
    slot: number,
    reason: JobContext['reason'],
    recordSlot: boolean,
  ): Promise<void> {
    if (job.running) {
      if (reason === 'schedule') {
        this.logger.warn({ job: job.def.name }, 'slot skipped: the previous run is still going');
        return job.running;
      }
      job.again ??= job.running.then((): Promise<void> => {
        job.again = undefined;
        return this.exclusive(job, this.clock.now(), reason, recordSlot);
      });
      return job.again;
    }
    const run = this.fire(job, slot, reason, recordSlot).finally(() => {
      job.running = undefined;
    });
    job.running = run;
    return run;
  }

  private async fire(job: JobSlot, slot: number, reason: JobContext['reason'], recordSlot: boolean) {
    const { store } = this.options;
    const { name } = job.def;
    const signal = this.abort.signal;
    if (signal.aborted) return;
    await recordJobStart(store, name, this.clock.now());
    const log = this.logger.child({ job: name, reason, slot: new Date(slot).toISOString() });
    log.info('job started');
    try {
      await job.def.run({ slot, reason, signal });
      await recordJobEnd(store, name, {
        at: this.clock.now(),
        slot: recordSlot ? slot : undefined,
        outcome: 'ok',
      });
      log.info('job finished');
    } catch (error) {
      if (signal.aborted) {
        log.warn('job interrupted by shutdown; it runs again at the next start');
        return;
      }
      const message = (error as Error).message ?? String(error);
      await recordJobEnd(store, name, {
        at: this.clock.now(),
        slot: recordSlot ? slot : undefined,
        outcome: 'failed',
        error: message,
      });
      log.error({ err: error }, 'job failed');
    }
  }
}
