import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { loopRetryMs, RoleHealth, STALL_GRACE_MS } from '../../src/daemon/role-health.js';
import { probeIntervalMs } from '../../src/daemon/store-outage.js';

/** The pure pieces behind "no store error ends a loop" and /readyz's account of the roles. */
describe('loop retry timing', () => {
  it('waits 1 s after the first failure, doubling to a 30 s ceiling', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((n) => loopRetryMs(n))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('probes the store at a quarter of the notice threshold, between 1 s and 15 s', () => {
    expect(probeIntervalMs(6_000)).toBe(1_500);
    expect(probeIntervalMs(5 * 60_000)).toBe(15_000);
    expect(probeIntervalMs(100)).toBe(1_000);
  });
});

describe('RoleHealth', () => {
  it('a failing loop is named until its next completed cycle', () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const health = new RoleHealth(clock);
    health.completed('report:weekly', 'scheduler');
    expect(health.problem()).toBeUndefined();
    expect(health.failed('report:weekly', 'scheduler', new Error('connection terminated\nstack'))).toBe(true);
    expect(health.failed('report:weekly', 'scheduler', new Error('ECONNREFUSED'))).toBe(false);
    expect(health.problem()).toBe(
      'scheduler role: report:weekly failing since 2026-01-01T00:00:00.000Z: ECONNREFUSED',
    );
    health.completed('report:weekly', 'scheduler');
    expect(health.problem()).toBeUndefined();
  });

  it('a loop past its next cycle by more than the grace is stalled', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const health = new RoleHealth(clock);
    health.expect('outbox worker 1', 'worker', clock.now() + 30_000);
    await clock.advance(30_000 + STALL_GRACE_MS);
    expect(health.problem()).toBeUndefined();
    await clock.advance(1);
    expect(health.problem()).toBe(
      'worker role: outbox worker 1 has not completed a cycle since 2026-01-01T00:00:30.000Z',
    );
    health.forget('outbox worker 1');
    expect(health.problem()).toBeUndefined();
  });
});
