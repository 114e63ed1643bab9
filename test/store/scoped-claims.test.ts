import { afterEach, describe, expect, it } from 'vitest';
import { openIncident } from '../../src/notify/incidents.js';
import type { ClaimScope } from '../../src/outbox/claim-scope.js';
import { claimNextDelivery, failExhausted } from '../../src/outbox/deliveries.js';
import { enqueueDelivery } from '../../src/outbox/enqueue.js';
import { getDelivery, nextDeliveryDue, unclaimedDeliveries } from '../../src/outbox/reads.js';
import { type TempStore, tempStore } from '../sync/helpers/temp-store.js';

/**
 * Claims scoped to what a worker's config can send (issue 17): rows of other reports, alerts or
 * destinations are neither claimed, nor failed, nor waited for; notices likewise by destination.
 */
const now = Date.UTC(2026, 2, 30, 6);

let temp: TempStore | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

describe('scoped outbox claims', () => {
  it('take only rows of the scope and leave the others pending, listed as unclaimed', async () => {
    temp = await tempStore();
    const { store } = temp;
    const row = async (report: string, destination: string, kind: 'report' | 'alert' = 'report') =>
      (await enqueueDelivery(store, { report, destination, querySetId: 101, runId: 1, kind }, now)).delivery;
    const mine = await row('north', 'email');
    const otherChannel = await row('north', 'slack');
    const otherReport = await row('south', 'email');
    const sameNameAlert = await row('north-alert', 'email', 'alert');
    const scope: ClaimScope = [
      { kind: 'report', name: 'north', destination: 'email' },
      // An alert of another name in scope; a report row named like it would not be.
      { kind: 'alert', name: 'elsewhere', destination: 'email' },
    ];
    const claim = () =>
      claimNextDelivery(store, { worker: 'w', now, leaseMs: 60_000, maxAttempts: 3, scope });

    expect((await claim())?.delivery.id).toBe(mine.id);
    expect(await claim()).toBeUndefined();
    // Nothing else is due for this scope: the worker sleeps instead of waking for other shards' rows.
    expect(await nextDeliveryDue(store, scope)).toBe(now + 60_000);
    expect(await nextDeliveryDue(store)).toBe(now);
    // An empty scope (no reports, no alerts) claims nothing at all.
    expect(await claimNextDelivery(store, { worker: 'w', now, leaseMs: 1, maxAttempts: 3, scope: [] })).toBe(
      undefined,
    );

    expect(
      (await unclaimedDeliveries(store, scope, now)).map((g) => [g.kind, g.report, g.destination]),
    ).toEqual([
      ['report', 'north', 'slack'],
      ['alert', 'north-alert', 'email'],
      ['report', 'south', 'email'],
    ]);
    for (const other of [otherChannel, otherReport, sameNameAlert]) {
      expect(await getDelivery(store, other.id)).toMatchObject({ state: 'pending', attempts: 0 });
    }
  });

  it('fail exhausted rows of the scope only', async () => {
    temp = await tempStore();
    const { store } = temp;
    const mine = (await enqueueDelivery(store, { report: 'north', querySetId: 101, runId: 1 }, now)).delivery;
    const theirs = (await enqueueDelivery(store, { report: 'south', querySetId: 101, runId: 1 }, now))
      .delivery;
    // Both rows used their attempts (the other shard's with its own, higher, limit in mind).
    for (const id of [mine.id, theirs.id]) {
      await claimNextDelivery(store, { worker: 'w', now, leaseMs: 1, maxAttempts: 9, id });
    }
    const scope: ClaimScope = [{ kind: 'report', name: 'north', destination: 'email' }];
    expect(await failExhausted(store, now + 10, 1, scope)).toBe(1);
    expect((await getDelivery(store, mine.id))?.state).toBe('failed');
    expect((await getDelivery(store, theirs.id))?.state).toBe('rendering');
  });
});

describe('scoped notice claims', () => {
  it('take only notices bound for the destinations the sender has', async () => {
    temp = await tempStore();
    const { store } = temp;
    await openIncident(store, {
      key: 'sync',
      kind: 'sync_failing',
      detail: 'the sync keeps failing',
      at: now,
      recipients: ['ops@example.com'],
      channels: ['ops-slack'],
    });
    // Notices are rows of the one queue (kind `notice`), scoped by destination alone.
    const notices = (...destinations: string[]): ClaimScope =>
      destinations.map((destination) => ({ kind: 'notice', name: '', destination }));
    const claim = async (scope: ClaimScope) =>
      (await claimNextDelivery(store, { worker: 'w', now, leaseMs: 60_000, maxAttempts: 8, scope }))
        ?.delivery;
    expect(await claim(notices())).toBeUndefined();
    // A report scope never takes a notice, whatever its destination.
    expect(await claim([{ kind: 'report', name: 'north', destination: 'email' }])).toBeUndefined();
    expect(await nextDeliveryDue(store, notices('teams'))).toBeUndefined();
    expect(await nextDeliveryDue(store, notices('ops-slack'))).toBe(now);
    const slack = await claim(notices('ops-slack'));
    expect(slack).toMatchObject({ kind: 'notice', destination: 'ops-slack', report: 'notice:sync' });
    expect(await claim(notices('ops-slack'))).toBeUndefined();
    expect((await claim(notices('email', 'ops-slack')))?.destination).toBe('email');
  });
});
