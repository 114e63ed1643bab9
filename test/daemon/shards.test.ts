import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatStatus } from '../../src/cli/status-text.js';
import type { Config } from '../../src/config/index.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { enqueueLatest } from '../../src/delivery/due.js';
import { enqueueDelivery } from '../../src/outbox/enqueue.js';
import { listDeliveries } from '../../src/outbox/reads.js';
import { collectStatus } from '../../src/status/collect.js';
import { openStore } from '../../src/store/db.js';
import type { Store } from '../../src/store/sql.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { testEngine } from '../helpers/test-store.js';
import { fixtureSnapshot } from '../report/fixtures.js';
import { seedStore } from '../report/helpers.js';
import { eventually, idleSync, seededConfig, stubRenderer } from './helpers.js';

/**
 * Two daemons on one store whose configs know different reports (shards of one agency): each claims
 * only the rows of its own reports, a worker-only daemon delivers what another enqueued, and a row no
 * config knows stays queued, listed by `status`, never failed.
 */
let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;
let target: string;
let observer: Store;
const daemons: Daemon[] = [];

beforeAll(async () => {
  tmp = tempDir();
  smtp = await startSmtp();
  target = testEngine() === 'postgres' ? await freshDatabaseUrl() : join(tmp.dir, 'reportd.sqlite');
  await seedStore(
    target,
    [101, 102].map((querySetId, i) =>
      fixtureSnapshot({ id: i + 1, querySetId, runId: 5000 + querySetId, querySet: `Set ${querySetId}` }),
    ),
  );
  observer = await openStore(target);
});

afterAll(async () => {
  for (const daemon of daemons) await daemon.close();
  await observer?.close();
  await smtp?.close();
  tmp?.cleanup();
});

function shardConfig(report: { name: string; set: number; to: string }): Config {
  const seeded = seededConfig(tmp.dir, {
    smtpUrl: smtp.url,
    report: {
      name: report.name,
      query_sets: [report.set],
      email: { to: [report.to] },
      schedule: { cron: '0 8 1 1 *' },
    },
  });
  return { ...seeded, store: testEngine() === 'postgres' ? { url: target } : { path: target } };
}

describe('daemons with different report sets on one store', () => {
  it('each delivers only its own reports; a row no config knows stays queued and shows in status', async () => {
    const north = shardConfig({ name: 'north', set: 101, to: 'north@example.com' });
    const south = shardConfig({ name: 'south', set: 102, to: 'south@example.com' });
    const a = await startDaemon({
      config: north,
      renderer: stubRenderer(tmp.dir),
      sync: idleSync,
      pollMs: 100,
    });
    daemons.push(a);
    // South's rows are enqueued by the north daemon's process before any south worker runs; and a
    // row for a report that was renamed away, which no config has any more.
    await enqueueLatest(a.outbox, a.store, north.reports[0]!, north.accounts);
    const southOutbox = (await startDaemonless(south)).outbox;
    await enqueueLatest(southOutbox, a.store, south.reports[0]!, south.accounts);
    await enqueueDelivery(a.store, { report: 'retired', querySetId: 101, runId: 5101 }, Date.now());
    a.kick();

    expect(await eventually(() => smtp.messages.length >= 1, 20_000)).toBe(true);
    // Five polls of the north worker later, the south row is still untouched (not failed, not claimed).
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = await listDeliveries(observer, 10);
    expect(before.find((d) => d.report === 'south')).toMatchObject({ state: 'pending', attempts: 0 });
    expect(smtp.envelopes).toEqual([['north@example.com']]);

    // A worker-only daemon of the south shard picks its row up (no scheduler, no sync, no http).
    const b = await startDaemon({
      config: south,
      renderer: stubRenderer(tmp.dir),
      sync: idleSync,
      pollMs: 100,
      roles: ['worker'],
    });
    daemons.push(b);
    expect(await eventually(() => smtp.messages.length >= 2, 20_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.envelopes.map((e) => e[0]).sort()).toEqual(['north@example.com', 'south@example.com']);

    const rows = await listDeliveries(observer, 10);
    const byReport = Object.fromEntries(rows.map((d) => [d.report, d]));
    expect(byReport.north).toMatchObject({ state: 'sent', attempts: 1, claimedBy: a.outbox.worker });
    expect(byReport.south).toMatchObject({ state: 'sent', attempts: 1, claimedBy: b.outbox.worker });
    expect(byReport.retired).toMatchObject({ state: 'pending', attempts: 0, lastError: null });
    expect(rows.filter((d) => d.state === 'failed')).toEqual([]);

    // `reportd status` with the north config lists the row no config has (south's went out).
    const status = await collectStatus(observer, north, Date.now());
    expect(status.unclaimed?.map((g) => [g.kind, g.name, g.destination, g.count])).toEqual([
      ['report', 'retired', 'email', 1],
    ]);
    expect(formatStatus(status)).toContain('report retired → email: 1 due since');
  }, 90_000);
});

/** An outbox of the south config without a daemon: what `reportd deliver` of that shard would enqueue with. */
async function startDaemonless(config: Config) {
  const { Outbox } = await import('../../src/delivery/outbox-worker.js');
  return {
    outbox: new Outbox({
      store: observer,
      renderer: stubRenderer(tmp.dir),
      mailer: { send: () => Promise.reject(new Error('not used')), close() {} },
      from: config.smtp!.from,
      reports: config.reports,
    }),
  };
}
