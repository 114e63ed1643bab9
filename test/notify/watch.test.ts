import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { configFromObject } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { listIncidents, listOpenIncidents } from '../../src/notify/incidents.js';
import { IncidentWatch } from '../../src/notify/watch.js';
import { claimNextDelivery, markFailed, markSent } from '../../src/outbox/deliveries.js';
import { enqueueDelivery } from '../../src/outbox/enqueue.js';
import { listNotices } from '../../src/outbox/notices.js';
import type { DeliveryKey } from '../../src/outbox/row.js';
import { upsertAccount } from '../../src/store/accounts.js';
import { openStore } from '../../src/store/db.js';
import { markGone, saveQuerySets } from '../../src/store/query-sets.js';
import type { Store } from '../../src/store/sql.js';
import { emptySyncSummary, type SyncIssue, type SyncSummary } from '../../src/sync/types.js';
import { tempDir } from '../delivery/smtp-helpers.js';

/**
 * The incident rules on a real store file, from sync pass summaries: the sync failing
 * `after_failed_syncs` passes in a row (refused credentials not counted twice), a set gone with -132
 * and listed again, and incidents with nobody to notify (recorded, no notice queued).
 */
let tmp: ReturnType<typeof tempDir>;
let store: Store;
beforeEach(async () => {
  tmp = tempDir();
  store = await openStore(join(tmp.dir, 'reportd.sqlite'));
  await upsertAccount(store, {
    name: 'acme',
    baseUrl: 'https://api.example.com/v2/integration',
    budgetKey: 'k',
  });
});
afterEach(async () => {
  await store.close();
  tmp.cleanup();
});

function watch(notify: Record<string, unknown> = { email: ['ops@example.com'], after_failed_syncs: 3 }) {
  const config = configFromObject(
    {
      accounts: [
        { name: 'acme', base_url: 'https://api.example.com/v2/integration', api_key: 'k', api_secret: 's' },
      ],
      smtp: { host: 'mail.example.com', from: 'reports@example.com' },
      notify_on_failure: notify,
    },
    tmp.dir,
  );
  return new IncidentWatch({
    config,
    store,
    clock: new FakeClock(Date.UTC(2026, 2, 1)),
    logger: silentLogger,
  });
}

const pass = (errors: SyncIssue['kind'][], extra: Partial<SyncSummary> = {}): SyncSummary => ({
  ...emptySyncSummary(1),
  errors: errors.map((kind) => ({ account: 'acme', kind, message: `account acme: ${kind}` })),
  ...extra,
});

describe('incident rules', () => {
  it('opens "sync failing" at the third failed pass in a row, once, and clears it on the next good pass', async () => {
    const w = watch();
    await w.afterSyncPass(pass(['internal']), 'failed');
    await w.afterSyncPass(pass(['internal']), 'failed');
    expect(await listIncidents(store, 10)).toEqual([]);
    await w.afterSyncPass(pass(['internal']), 'failed');
    await w.afterSyncPass(pass(['internal']), 'failed');
    expect((await listIncidents(store, 10)).map((i) => [i.key, i.detail])).toEqual([
      ['sync', 'the sync failed 3 passes in a row: account acme: internal'],
    ]);
    await w.afterSyncPass(pass([]), 'ok');
    expect((await listIncidents(store, 10))[0]?.clearedAt).not.toBeNull();
    expect((await listNotices(store)).map((n) => n.kind)).toEqual(['opened', 'cleared']);
  });

  it('does not count passes that only failed on a refused credential (that incident is its own)', async () => {
    const w = watch();
    for (let i = 0; i < 5; i++) await w.afterSyncPass(pass(['not_authorized']), 'failed');
    expect((await listIncidents(store, 10)).map((i) => i.key)).toEqual(['credential:acme']);
  });

  it('opens one incident for a gone set and clears it when the set is listed again', async () => {
    const w = watch();
    await saveQuerySets(
      store,
      'acme',
      1,
      [{ id: 101, name: 'Buyers <DACH>', created_at: '2026-01-05T09:00:00Z' }],
      0,
    );
    await markGone(store, 'acme', 101, 'query set not found (-132)', 0);
    const gone = pass(['request_failed'], { goneSets: [{ account: 'acme', querySetId: 101 }] });
    await w.afterSyncPass(gone, 'incomplete');
    await w.afterSyncPass(gone, 'incomplete');
    expect((await listIncidents(store, 10)).map((i) => [i.key, i.detail])).toEqual([
      [
        'set-gone:acme:101',
        'account acme: query set 101 (Buyers <DACH>) is gone (-132) and is no longer synced',
      ],
    ]);
    await w.afterSyncPass(pass([]), 'ok'); // still gone in the store: stays open
    expect((await listIncidents(store, 10))[0]?.clearedAt).toBeNull();
    await saveQuerySets(
      store,
      'acme',
      1,
      [{ id: 101, name: 'Buyers <DACH>', created_at: '2026-01-05T09:00:00Z' }],
      0,
    );
    await w.afterSyncPass(pass([]), 'ok');
    expect((await listIncidents(store, 10))[0]?.clearedAt).not.toBeNull();
  });

  it('records incidents without recipients but queues no notice', async () => {
    const w = watch({ after_failed_syncs: 1 });
    await w.afterSyncPass(pass(['internal']), 'failed');
    expect(await listIncidents(store, 10)).toHaveLength(1);
    expect(await listNotices(store)).toEqual([]);
  });
});

describe('notice destinations', () => {
  it('a report incident goes to the top-level and the report own channels, each once; others to the top level only', async () => {
    const config = configFromObject(
      {
        accounts: [
          { name: 'acme', base_url: 'https://api.example.com/v2/integration', api_key: 'k', api_secret: 's' },
        ],
        smtp: { host: 'mail.example.com', from: 'reports@example.com' },
        channels: [
          { name: 'ops', type: 'teams', webhook_url: 'https://teams.example.com/hook/1' },
          { name: 'owners', type: 'teams', webhook_url: 'https://teams.example.com/hook/2' },
        ],
        reports: [
          {
            name: 'weekly',
            schedule: { cron: '0 8 * * 1' },
            email: { to: ['cmo@example.com'] },
            notify_on_failure: { email: ['cmo@example.com'], channels: ['owners', 'ops'] },
          },
        ],
        notify_on_failure: { email: ['ops@example.com'], channels: ['ops'] },
      },
      tmp.dir,
    );
    const w = new IncidentWatch({ config, store, clock: new FakeClock(), logger: silentLogger });
    expect(w.recipients('weekly')).toEqual({
      recipients: ['ops@example.com', 'cmo@example.com'],
      channels: ['ops', 'owners'],
    });
    expect(w.recipients()).toEqual({ recipients: ['ops@example.com'], channels: ['ops'] });
    await w.afterSyncPass(pass(['not_authorized']), 'failed');
    expect((await listNotices(store)).map((n) => [n.kind, n.destination, n.recipients])).toEqual([
      ['opened', 'email', ['ops@example.com']],
      ['opened', 'ops', []],
    ]);
  });

  describe('deliveries, per (report or alert) × destination', () => {
    const channelsConfig = () =>
      configFromObject(
        {
          accounts: [
            {
              name: 'acme',
              base_url: 'https://api.example.com/v2/integration',
              api_key: 'k',
              api_secret: 's',
            },
          ],
          smtp: { host: 'mail.example.com', from: 'reports@example.com' },
          channels: [
            { name: 'marketing', type: 'slack', token: 'xoxb-1', channel: 'C1' },
            {
              name: 'ops',
              type: 'webhook',
              url: 'https://hooks.example.com/r',
              secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
            },
          ],
          reports: [{ name: 'weekly', schedule: { cron: '0 8 * * 1' }, channels: ['marketing', 'ops'] }],
          alerts: [
            {
              name: 'drop',
              rules: [{ metric: 'presence.gross', change: '<= -5' }],
              channels: ['ops'],
            },
          ],
          notify_on_failure: { email: ['ops@example.com'] },
        },
        tmp.dir,
      );
    const now = Date.UTC(2026, 2, 1);
    /** One row of `key` to `destination`, claimed and finished as a worker would. */
    async function finish(key: DeliveryKey, destination: string, end: 'sent' | 'failed', runId: number) {
      const { delivery } = await enqueueDelivery(store, { ...key, destination, runId }, now);
      const claim = await claimNextDelivery(store, {
        worker: 'w',
        now,
        leaseMs: 60_000,
        maxAttempts: 8,
        id: delivery.id,
      });
      const fence = { id: delivery.id, token: claim!.delivery.token! };
      if (end === 'sent') expect(await markSent(store, fence, now, null)).toBe(true);
      else expect(await markFailed(store, fence, now, 'invalid_auth')).toBe(true);
    }
    const report = { report: 'weekly', querySetId: 101, runId: 1 };

    it("Slack failing for good beside a healthy webhook: one notice, no 'resolved' until Slack itself succeeds", async () => {
      const w = new IncidentWatch({
        config: channelsConfig(),
        store,
        clock: new FakeClock(now),
        logger: silentLogger,
      });
      await finish(report, 'marketing', 'failed', 1);
      await finish(report, 'ops', 'sent', 1);
      await w.reconcileDeliveries();
      await w.reconcileDeliveries();
      expect((await listOpenIncidents(store)).map((i) => i.key)).toEqual([
        'delivery:report:weekly:marketing',
      ]);
      // The webhook keeps succeeding: the Slack incident stays open, no "resolved".
      await finish(report, 'ops', 'sent', 2);
      await w.reconcileDeliveries();
      expect((await listNotices(store)).map((n) => n.kind)).toEqual(['opened']);
      await finish(report, 'marketing', 'sent', 3);
      await w.reconcileDeliveries();
      expect(await listOpenIncidents(store)).toEqual([]);
      expect((await listNotices(store)).map((n) => n.kind)).toEqual(['opened', 'cleared']);
      expect((await listIncidents(store, 10))[0]!.detail).toMatch(
        /report weekly to marketing: could not be delivered: invalid_auth/,
      );
    });

    it('an alert to a failing channel raises one notice', async () => {
      const w = new IncidentWatch({
        config: channelsConfig(),
        store,
        clock: new FakeClock(now),
        logger: silentLogger,
      });
      const alert: DeliveryKey = { report: 'drop', querySetId: 101, runId: 1, kind: 'alert' };
      await finish(alert, 'ops', 'failed', 1);
      await w.reconcileDeliveries();
      await w.reconcileDeliveries();
      expect((await listOpenIncidents(store)).map((i) => i.key)).toEqual(['delivery:alert:drop:ops']);
      expect(await listNotices(store)).toHaveLength(1);
    });
  });
});
