import { type Clock, systemClock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Store } from './sql.js';

/**
 * One clock for every process sharing a PostgreSQL store: the database's. Account leases, job-slot
 * claims, instance heartbeats and the request log of the shared rate budget all compare times written
 * by different hosts; on host clocks, a host 120 s ahead sees every other holder's lease as lapsed
 * (and takes it from a live holder) and counts the budget's window 120 s later than its peers (a
 * -145 at the API). Every one of those times is taken from this clock, so they agree whatever the
 * hosts' clocks say.
 *
 * It is the host's clock plus the offset to the database's `clock_timestamp()`, measured at start and
 * again every `RESAMPLE_MS` (the host's clock may be stepped by NTP meanwhile): asking the database on
 * every reading would put a round trip under each budget decision. The sample with the shortest round
 * trip of a few is kept; its error is at most half that round trip (about a millisecond on one LAN).
 * A resample taken while the process is busy (its query waiting in the pool behind a sync's writes)
 * can be off by a hundred milliseconds, all in one direction: it replaces the offset in use only if
 * it is at least as precise, or if the two disagree by far more than both errors (the clock was stepped).
 * Moving the offset by a bad sample would move every budget decision with it: a -145.
 *
 * SQLite is one file on one host: every process reads the same host clock, so the offset is 0.
 */

/** More than this off from the database's clock is said in the log, in `status` and on the status page. */
export const SKEW_REPORT_MS = 5_000;
const RESAMPLE_MS = 60_000;
const SAMPLES = 3;
/** How fast a kept sample's error grows with its age: a disciplined host clock drifts far less. */
const DRIFT_PER_MS = 50e-6;

/** One reading of the database's clock: the offset to it and how precise it is. */
export interface ClockSample {
  offset: number;
  roundTrip: number;
  /** The host's time of the reading. */
  at: number;
}

/**
 * Whether `next` should replace `kept` as the offset in use: when it is at least as precise as the
 * kept one is by now, or when the two cannot both be right (they disagree by twice both errors).
 */
export function betterSample(kept: ClockSample | undefined, next: ClockSample): boolean {
  if (!kept) return true;
  const keptError = kept.roundTrip / 2 + (next.at - kept.at) * DRIFT_PER_MS;
  const nextError = next.roundTrip / 2;
  // A reading that waited before it was sent is off by all of its error, right at the bound: only
  // twice that is sure to be a step of the clock, not a slow reading.
  return nextError <= keptError || Math.abs(next.offset - kept.offset) > 2 * (nextError + keptError);
}

export interface StoreClock extends Clock {
  /** The host's clock minus the database's, ms (positive: the host is ahead); 0 on SQLite. */
  skewMs(): number;
  /** Stops resampling. */
  close(): void;
}

export async function storeClock(
  store: Store,
  options: { logger?: Logger; base?: Clock; resampleMs?: number } = {},
): Promise<StoreClock> {
  const base = options.base ?? systemClock;
  // No default logger: log.ts loads pino, and \`history\` and \`status\` reach this module (for
  // SKEW_REPORT_MS) without writing a line.
  const { logger } = options;
  let offset = 0;
  let kept: ClockSample | undefined;
  let reported = false;
  let timer: NodeJS.Timeout | undefined;
  const clock: StoreClock = {
    now: () => base.now() + offset,
    sleep: (ms, signal) => base.sleep(ms, signal),
    skewMs: () => Math.round(-offset),
    close: () => clearInterval(timer),
  };
  if (store.engine !== 'postgres') return clock;

  const sample = async () => {
    let best: ClockSample | undefined;
    for (let i = 0; i < SAMPLES; i++) {
      const before = base.now();
      const row = await store.get<{ ms: number }>(
        'SELECT EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS ms',
      );
      const after = base.now();
      const roundTrip = after - before;
      if (!best || roundTrip < best.roundTrip) {
        best = { offset: Number(row!.ms) - (before + after) / 2, roundTrip, at: after };
      }
    }
    if (betterSample(kept, best!)) kept = best!;
    // Whole milliseconds: times are stored as integers (BIGINT on PostgreSQL).
    offset = Math.round(kept!.offset);
    const skew = clock.skewMs();
    // Once per episode: a skewed host keeps working (every shared time comes from here), so a line
    // per resample would only repeat itself.
    if (Math.abs(skew) > SKEW_REPORT_MS && !reported) {
      reported = true;
      logger?.warn(
        { skewMs: skew, store: store.location },
        `this host's clock is ${skewText(skew)} the database's; reportd times leases, slots and the rate budget by the database's clock`,
      );
    } else if (Math.abs(skew) <= SKEW_REPORT_MS && reported) {
      reported = false;
      logger?.info({ skewMs: skew }, "this host's clock agrees with the database's again");
    }
  };
  await sample();
  timer = setInterval(() => {
    sample().catch((error: unknown) => {
      // The store is unreachable for now: keep the last offset; the store's own users report it.
      logger?.debug({ err: error }, 'could not read the database clock');
    });
  }, options.resampleMs ?? RESAMPLE_MS);
  timer.unref();
  return clock;
}

/** `120 s ahead of`, `3.2 s behind`: how far a host's clock is from the database's. */
export function skewText(skewMs: number): string {
  const seconds = Math.abs(skewMs) / 1000;
  const amount = seconds >= 10 ? Math.round(seconds).toString() : seconds.toFixed(1);
  return `${amount} s ${skewMs > 0 ? 'ahead of' : 'behind'}`;
}
