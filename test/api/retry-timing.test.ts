import { describe, expect, it } from 'vitest';
import {
  backoffCeiling,
  backoffDelay,
  maxStartsInAnyWindow,
  minimumDurationMs,
  nextStartTime,
  timeToStartAll,
} from '../../src/api/retry-timing.js';

const backoff = { baseMs: 100, capMs: 1_000 };

describe('backoff with cap and full jitter', () => {
  it('doubles the ceiling per retry and stops at the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 60].map((r) => backoffCeiling(r, backoff))).toEqual([
      100, 200, 400, 800, 1_000, 1_000, 1_000,
    ]);
  });

  it('spreads the delay over the whole range [0, ceiling) using the injected random', () => {
    expect(backoffDelay(2, backoff, () => 0)).toBe(0);
    expect(backoffDelay(2, backoff, () => 0.5)).toBe(200);
    expect(backoffDelay(2, backoff, () => 0.999999)).toBe(399);
    expect(backoffDelay(50, backoff, () => 0.999999)).toBeLessThan(1_000);
  });
});

describe('next start in a sliding window (requests count until windowMs after they end)', () => {
  const window = { requests: 3, windowMs: 1_000 };

  it('starts at once while the window has room', () => {
    expect(nextStartTime({ ...window, finished: [] }, 5_000)).toBe(5_000);
    expect(nextStartTime({ ...window, finished: [4_500, 4_900] }, 5_000)).toBe(5_000);
  });

  it('waits exactly until the oldest counted start leaves the window', () => {
    expect(nextStartTime({ ...window, finished: [4_200, 4_500, 4_900] }, 5_000)).toBe(5_200);
    // Starts older than the window do not count.
    expect(nextStartTime({ ...window, finished: [3_000, 4_200, 4_500] }, 5_000)).toBe(5_000);
    // At the boundary the old start has left: a start at s counts until s + windowMs, exclusive.
    expect(nextStartTime({ ...window, finished: [4_000, 4_500, 4_900] }, 5_000)).toBe(5_000);
  });

  it('counts requests in flight until they end', () => {
    // Two in flight and one finished fill the window; the finished one leaving frees the slot.
    expect(nextStartTime({ ...window, finished: [4_300], inFlight: 2 }, 5_000)).toBe(5_300);
    // All three in flight: only an end can free a slot.
    expect(nextStartTime({ ...window, finished: [], inFlight: 3 }, 5_000)).toBe(Number.POSITIVE_INFINITY);
    expect(nextStartTime({ ...window, finished: [4_300, 4_400], inFlight: 1 }, 5_000)).toBe(5_300);
  });

  it('honours a penalty: no start before blockedUntil, then the window rule', () => {
    expect(nextStartTime({ ...window, finished: [], blockedUntil: 6_000 }, 5_000)).toBe(6_000);
    expect(nextStartTime({ ...window, finished: [5_100, 5_200, 6_500], blockedUntil: 6_000 }, 5_000)).toBe(
      6_100,
    );
  });

  it('computes the least time for a number of requests', () => {
    expect(minimumDurationMs(0, 120, 60_000)).toBe(0);
    expect(minimumDurationMs(120, 120, 60_000)).toBe(0);
    expect(minimumDurationMs(121, 120, 60_000)).toBe(60_000);
    expect(minimumDurationMs(1_000, 120, 60_000)).toBe(8 * 60_000);
  });

  it('counts the fullest window over arbitrary start times', () => {
    expect(maxStartsInAnyWindow([], 1_000)).toBe(0);
    expect(maxStartsInAnyWindow([0, 999, 1_000, 1_999], 1_000)).toBe(2);
    expect(maxStartsInAnyWindow([0, 500, 999, 1_000], 1_000)).toBe(3);
  });
});

describe('time until N more requests can have started (progress ETA)', () => {
  const window = { requests: 3, windowMs: 1_000 };

  it('is zero for what fits in the window now, and equals minimumDurationMs from an empty window', () => {
    expect(timeToStartAll({ ...window, finished: [] }, 0, 5_000)).toBe(0);
    expect(timeToStartAll({ ...window, finished: [] }, 3, 5_000)).toBe(0);
    expect(timeToStartAll({ ...window, finished: [] }, 4, 5_000)).toBe(1_000);
    expect(timeToStartAll({ ...window, finished: [] }, 10, 5_000)).toBe(minimumDurationMs(10, 3, 1_000));
  });

  it('waits for the counted requests to leave, then whole windows', () => {
    // Full window whose oldest leaves at 5_200: the 1st next start then, the 4th one window later.
    const full = { ...window, finished: [4_200, 4_500, 4_900] };
    expect(timeToStartAll(full, 1, 5_000)).toBe(200);
    expect(timeToStartAll(full, 3, 5_000)).toBe(900);
    expect(timeToStartAll(full, 4, 5_000)).toBe(1_200);
    // Requests in flight count as ending now; a penalty holds everything back.
    expect(timeToStartAll({ ...window, finished: [], inFlight: 3 }, 1, 5_000)).toBe(1_000);
    expect(timeToStartAll({ ...window, finished: [], blockedUntil: 6_000 }, 2, 5_000)).toBe(1_000);
  });

  it('counts down as the clock moves with the same requests still to start', () => {
    const state = { ...window, finished: [4_200, 4_500, 4_900] };
    const etas = [5_000, 5_100, 5_150, 5_199].map((now) => timeToStartAll(state, 5, now));
    expect(etas).toEqual([1_500, 1_400, 1_350, 1_301]);
  });
});
