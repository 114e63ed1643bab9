import { afterEach, describe, expect, it } from 'vitest';
import { type Clock, systemClock } from '../../src/clock.js';
import { type SyncEnv, startSyncEnv } from './helpers/sync-env.js';

/** Real time shifted by `offsetMs`: passes "an hour later" without waiting an hour. */
function shiftedClock(): Clock & { offsetMs: number } {
  const clock = {
    offsetMs: 0,
    now: () => systemClock.now() + clock.offsetMs,
    sleep: systemClock.sleep,
  };
  return clock;
}

const MINUTE = 60_000;

describe('catalog cache', () => {
  let env: SyncEnv;
  afterEach(() => env.close());

  it('asks for brands, query sets and details once per catalog_ttl_minutes, and for runs on every pass', async () => {
    env = await startSyncEnv({ settings: { backfill_runs: 1, catalog_ttl_minutes: 30 } });
    const clock = shiftedClock();
    await env.sync({ clock });
    expect(env.sandbox.stats.byEndpoint).toMatchObject({
      'catalog.brands': 1,
      'catalog.query-sets': 2, // both brands of the company
      'catalog.details': 1,
      'catalog.runs': 1,
    });

    env.sandbox.resetStats();
    clock.offsetMs = 29 * MINUTE;
    await env.sync({ clock });
    expect(env.sandbox.stats.byEndpoint).toEqual({ 'catalog.runs': 1 });

    env.sandbox.resetStats();
    clock.offsetMs = 31 * MINUTE;
    const summary = await env.sync({ clock });
    expect(summary.errors).toEqual([]);
    expect(env.sandbox.stats.byEndpoint).toEqual({
      'catalog.brands': 1,
      'catalog.query-sets': 2,
      'catalog.details': 1,
      'catalog.runs': 1,
    });
  });
});
