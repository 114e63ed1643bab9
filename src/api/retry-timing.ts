/**
 * Retry and rate-window timing as pure functions: no clock, no timers, no randomness of their own.
 * The budget and the client feed them `now` and `random`, so every wait can be checked on paper.
 */

export interface BackoffOptions {
  /** Ceiling of the first retry's delay, in ms. Doubles per retry. */
  baseMs: number;
  /** The ceiling never grows past this, in ms. */
  capMs: number;
}

/** Upper bound of the delay before retry number `retry` (0 = the first retry): min(cap, base·2^retry). */
export function backoffCeiling(retry: number, options: BackoffOptions): number {
  const exponent = Math.max(0, Math.floor(retry));
  // 2^exponent overflows to Infinity long before it matters; min() with the cap keeps it finite.
  return Math.max(0, Math.min(options.capMs, options.baseMs * 2 ** exponent));
}

/**
 * "Full jitter": a uniformly random delay in [0, ceiling). Spreading retries over the whole range
 * (instead of ceiling ± a little) is what keeps many clients that failed together from retrying
 * together. `random` returns values in [0, 1) like Math.random.
 */
export function backoffDelay(retry: number, options: BackoffOptions, random: () => number): number {
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(backoffCeiling(retry, options) * r);
}

export interface WindowState {
  /**
   * Times from which finished requests count, ascending: when each ended (or, reloaded from history,
   * when it started). Times older than the window are ignored.
   */
  finished: readonly number[];
  /** Requests still in flight: they count until they end, whenever that is. */
  inFlight?: number;
  /** At most this many requests inside any window of `windowMs`. */
  requests: number;
  windowMs: number;
  /** No start before this time (set after the server answered -145). */
  blockedUntil?: number;
}

/**
 * The earliest time >= `now` at which one more request may start; `Infinity` when only the end of a
 * request in flight can free a slot.
 *
 * Why requests count from their END, not their start: the server counts a request when it arrives,
 * somewhere between our start and our end. Counting from the end is the only bound that holds
 * whatever the latency, so a cold connection or a slow answer can never push the server's window
 * past `requests` and cost a whole -145 window. It costs one latency per window (milliseconds
 * against a minute). Since a request ends after it starts, no window of `windowMs` ever holds more
 * than `requests` starts either.
 *
 * When the window is full the answer is exactly the moment the oldest counted request leaves it: the
 * budget is used fully, with no rounding and no fixed sleep.
 */
export function nextStartTime(state: WindowState, now: number): number {
  const earliest = Math.max(now, state.blockedUntil ?? Number.NEGATIVE_INFINITY);
  if (state.requests <= 0) return Number.POSITIVE_INFINITY;
  const recent = timesInWindow(state.finished, earliest, state.windowMs);
  const counted = (state.inFlight ?? 0) + recent.length;
  if (counted < state.requests) return earliest;
  // This many finished requests must leave the window first; the last of them decides.
  const mustLeave = counted - state.requests + 1;
  if (mustLeave > recent.length) return Number.POSITIVE_INFINITY;
  return Math.max(earliest, recent[mustLeave - 1]! + state.windowMs);
}

/** The times still counted at `now`: those with `time > now - windowMs` (a request counts for windowMs). */
export function timesInWindow(times: readonly number[], now: number, windowMs: number): number[] {
  const floor = now - windowMs;
  let first = 0;
  while (first < times.length && times[first]! <= floor) first++;
  return times.slice(first);
}

/**
 * The least time `count` requests take to start from an empty window: `requests` start at once, then
 * the next batch one window later, and so on. The last start is floor((count-1)/requests) windows in.
 */
export function minimumDurationMs(count: number, requests: number, windowMs: number): number {
  if (count <= 0 || requests <= 0) return 0;
  return Math.floor((count - 1) / requests) * windowMs;
}

/**
 * How long from `now` until `count` more requests can all have started, given what the window
 * already holds: the ETA a progress display shows. Requests in flight are taken to end now (we cannot
 * know when they will), so this is the least time, and it shrinks as the clock moves even when no
 * request ends, unlike a count of whole windows, which stays put until a window rolls over.
 *
 * Each next start is the moment the request `requests` places back leaves the window, exactly as
 * `nextStartTime` grants them one by one.
 */
export function timeToStartAll(state: WindowState, count: number, now: number): number {
  if (count <= 0) return 0;
  if (state.requests <= 0) return Number.POSITIVE_INFINITY;
  const earliest = Math.max(now, state.blockedUntil ?? Number.NEGATIVE_INFINITY);
  const counted = [
    ...timesInWindow(state.finished, now, state.windowMs),
    ...Array<number>(state.inFlight ?? 0).fill(now),
  ].sort((a, b) => a - b);
  // Only the last `requests` times can hold a start back; keep a ring of them, not the whole list.
  const ring = counted.slice(-state.requests);
  let last = earliest;
  for (let i = 0; i < count; i++) {
    const blocking = ring.length >= state.requests ? ring[ring.length - state.requests]! : undefined;
    last = Math.max(earliest, last, blocking === undefined ? earliest : blocking + state.windowMs);
    ring.push(last);
    if (ring.length > state.requests) ring.shift();
  }
  return last - now;
}

/**
 * The largest number of starts inside any window of `windowMs` (half-open, [t, t+windowMs)). Tests and
 * benchmarks use it to prove the budget held over every window, not only the fixed ones.
 */
export function maxStartsInAnyWindow(starts: readonly number[], windowMs: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let max = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! >= windowMs) lo++;
    max = Math.max(max, hi - lo + 1);
  }
  return max;
}
