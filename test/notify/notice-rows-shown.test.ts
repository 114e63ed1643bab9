import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatStatus } from '../../src/cli/status-text.js';
import { configFromObject } from '../../src/config/index.js';
import { openIncident } from '../../src/notify/incidents.js';
import { listDeliveries } from '../../src/outbox/reads.js';
import { collectStatus } from '../../src/status/collect.js';
import { statusView } from '../../src/status/page.js';
import { type TempStore, tempStore } from '../sync/helpers/temp-store.js';

/**
 * A failure notice is a row of the delivery queue whose set and run columns hold its incident and
 * event. `reportd status` must not list it as work no config can do when this config sends such
 * notices, and the status page names it as a notice, not as "set 17 / run 0".
 */
let temp: TempStore;

beforeAll(async () => {
  temp = await tempStore();
  await openIncident(temp.store, {
    key: 'sync:acme',
    kind: 'sync_failing',
    detail: 'the API refused the key',
    at: Date.now() - 1_000,
    recipients: ['ops@example.com'],
  });
});

afterAll(async () => {
  await temp?.cleanup();
});

const config = (withSmtp: boolean) =>
  configFromObject(
    {
      accounts: [{ name: 'acme', base_url: 'http://127.0.0.1:9', api_key: 'k', api_secret: 's' }],
      ...(withSmtp ? { smtp: { host: '127.0.0.1', from: 'reports@example.com' } } : {}),
    },
    process.cwd(),
  );

describe('failure notices in status and on the status page', () => {
  it('a pending email notice is not "outbox rows this config cannot send" when the config has smtp', async () => {
    const rows = await listDeliveries(temp.store, 10);
    expect(rows.map((r) => [r.kind, r.destination, r.state])).toEqual([['notice', 'email', 'pending']]);
    const status = await collectStatus(temp.store, config(true), Date.now());
    expect(status.unclaimed).toEqual([]);
    // Without smtp no worker of this config sends it: then it is listed, by its kind.
    const without = await collectStatus(temp.store, config(false), Date.now());
    expect(without.unclaimed?.map((g) => [g.kind, g.destination, g.count])).toEqual([['notice', 'email', 1]]);
    expect(formatStatus(status)).not.toMatch(/cannot send/);
  });

  it('the status page names the notice and its incident, not a set and a run', async () => {
    const view = await statusView({ config: config(true), store: temp.store, now: Date.now() });
    const [row] = view.deliveries;
    expect(row?.report).toMatch(/^failure notice sync:acme \(incident \d+ opened\) to email$/);
    expect(row?.notice).toBe(true);
  });
});
