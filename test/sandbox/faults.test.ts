import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { BAD_GATEWAY_HTML } from '../../src/sandbox/faults.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { get } from './http.js';

/** A payload request is still unanswered 1 ms before `ms` of the fake clock, and answered 200 at `ms`. */
async function answeredAfter(sandbox: Sandbox, clock: FakeClock, ms: number): Promise<void> {
  let settled = false;
  const pending = get(sandbox, '/presence/sets/101/gross').then((r) => {
    settled = true;
    return r;
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  await clock.advance(ms - 1);
  expect(settled).toBe(false);
  await clock.advance(1);
  expect((await pending).status).toBe(200);
}

describe('sandbox faults', () => {
  it('with faults 1.0 fails every first attempt, and the retry of the same request succeeds', async () => {
    const sandbox = await startSandbox({ faults: 1, faultStallMs: 20 });
    try {
      const targets = [
        '/brands/list',
        '/sets/101/runs',
        '/presence/sets/101/gross',
        '/life/sets/201/kpi',
        '/scout/sets/101/source-landscape?limit=3',
        '/gravity/sets/101/trend',
        '/market/sets/201/data',
        '/home/sets/101/summary',
        '/life/sets/101/stance-mix',
      ];
      const firstOutcomes: string[] = [];
      for (const target of targets) {
        try {
          const first = await get(sandbox, target);
          firstOutcomes.push(first.status === 502 ? 'html502' : 'stall');
          if (first.status === 502) {
            expect(first.contentType).toMatch(/text\/html/);
            expect(first.text).toBe(BAD_GATEWAY_HTML);
          }
        } catch {
          firstOutcomes.push('reset'); // the socket was destroyed: fetch rejects
        }
        const retry = await get(sandbox, target);
        expect(retry.status, target).toBe(200);
      }
      // A stall answers normally after the pause, so only 502 and reset are failures a client sees.
      expect(firstOutcomes.filter((o) => o !== 'stall').length).toBeGreaterThan(0);
      expect(sandbox.stats.faults).toBe(targets.length);
      expect(sandbox.stats.total).toBe(targets.length * 2);
      // After resetFaults the next attempt is a first attempt again.
      sandbox.resetFaults();
      await get(sandbox, '/sets/101/runs').catch(() => undefined);
      expect(sandbox.stats.faults).toBe(targets.length + 1);
    } finally {
      await sandbox.close();
    }
  });

  it('resets the connection or answers HTML 502 when restricted to those kinds', async () => {
    const sandbox = await startSandbox({ faults: 1, faultKinds: ['reset'] });
    try {
      await expect(
        fetch(`${sandbox.baseUrl}/brands/list`, {
          headers: { 'X-Api-Key': 'sandbox-key', 'X-Api-Secret': 'sandbox-secret' },
        }),
      ).rejects.toThrow();
      expect((await get(sandbox, '/brands/list')).status).toBe(200);
    } finally {
      await sandbox.close();
    }
    const gateway = await startSandbox({ faults: 1, faultKinds: ['html502'] });
    try {
      const first = await get(gateway, '/sets/201/runs');
      expect(first.status).toBe(502);
      expect(first.body).toBeUndefined(); // not JSON: a client must treat it as transient
    } finally {
      await gateway.close();
    }
  });

  it('stalls for faultStallMs on the injected clock before answering', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ faults: 1, faultKinds: ['stall'], faultStallMs: 3000, clock });
    try {
      await answeredAfter(sandbox, clock, 3000);
    } finally {
      await sandbox.close();
    }
  });

  it('with latencyMs answers every payload request that much later on the injected clock, the catalog at once', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ latencyMs: 250, clock });
    try {
      expect((await get(sandbox, '/sets/101/runs')).status).toBe(200);
      await answeredAfter(sandbox, clock, 250);
    } finally {
      await sandbox.close();
    }
  });

  it('faults about the configured share of first attempts, the same ones in every sandbox', async () => {
    const targets = Array.from({ length: 60 }, (_, i) => `/sets/brands/1/list?probe=${i}`);
    const faultedIn = async () => {
      const sandbox = await startSandbox({ faults: 0.25, faultKinds: ['html502'] });
      try {
        const faulted: number[] = [];
        for (const [i, target] of targets.entries()) {
          if ((await get(sandbox, target)).status === 502) faulted.push(i);
        }
        return faulted;
      } finally {
        await sandbox.close();
      }
    };
    const a = await faultedIn();
    expect(a.length).toBeGreaterThan(5);
    expect(a.length).toBeLessThan(30);
    expect(await faultedIn()).toEqual(a);
  });

  it('closes while a stall is pending without hanging', async () => {
    const sandbox = await startSandbox({ faults: 1, faultKinds: ['stall'], faultStallMs: 60_000 });
    const pending = get(sandbox, '/brands/list').catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await sandbox.close();
    await expect(pending).resolves.toBeInstanceOf(Error);
    // close() is idempotent.
    await sandbox.close();
  });
});
