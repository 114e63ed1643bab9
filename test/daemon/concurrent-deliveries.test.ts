import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { enqueueLatest } from '../../src/delivery/due.js';
import type { DeliveryRenderer } from '../../src/delivery/outbox-options.js';
import { listDeliveries } from '../../src/outbox/reads.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { fixtureSnapshot } from '../report/fixtures.js';
import { seedStore } from '../report/helpers.js';
import { eventually, idleSync, seededConfig, stubRenderer } from './helpers.js';

/**
 * The daemon's outbox worker with `chromium.concurrency: 2`: two deliveries render at once, never
 * three, and each row is still claimed, rendered and sent exactly once.
 */
let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;
let daemon: Daemon | undefined;

beforeAll(async () => {
  tmp = tempDir();
  smtp = await startSmtp();
  await seedStore(
    join(tmp.dir, 'reportd.sqlite'),
    [101, 102, 103].map((querySetId, i) =>
      fixtureSnapshot({ id: i + 1, querySetId, runId: 5000 + querySetId, querySet: `Set ${querySetId}` }),
    ),
  );
});

afterAll(async () => {
  await daemon?.close();
  await smtp?.close();
  tmp?.cleanup();
});

describe('outbox worker with concurrency', () => {
  it('renders up to chromium.concurrency deliveries at once and sends each once', async () => {
    const seeded = seededConfig(tmp.dir, {
      smtpUrl: `smtp://127.0.0.1:${smtp.port}`,
      report: { query_sets: [101, 102, 103], schedule: { cron: '0 8 1 1 *' } },
    });
    const config = { ...seeded, chromium: { ...seeded.chromium, concurrency: 2 } };
    const stub = stubRenderer(tmp.dir);
    let inFlight = 0;
    let most = 0;
    const renderer: DeliveryRenderer = {
      async render(delivery, signal) {
        inFlight++;
        most = Math.max(most, inFlight);
        try {
          // Holds each render until a second one runs beside it (or 3 s pass): a worker that renders
          // one delivery at a time never gets there.
          await eventually(() => inFlight >= 2, 3_000);
          return await stub.render(delivery, signal);
        } finally {
          inFlight--;
        }
      },
    };
    daemon = await startDaemon({ config, renderer, sync: idleSync, pollMs: 200 });
    const report = config.reports[0]!;
    const queued = await enqueueLatest(daemon.outbox, daemon.store, report, config.accounts);
    expect(queued.filter((r) => r.created)).toHaveLength(3);
    daemon.kick();
    expect(await eventually(() => smtp.messages.length >= 3, 20_000)).toBe(true);
    expect(most).toBe(2);
    // The server has the third message a moment before the worker records its answer: wait for it.
    await expect
      .poll(async () => (await listDeliveries(daemon!.store, 10)).map((row) => row.state), {
        timeout: 10_000,
      })
      .toEqual(['sent', 'sent', 'sent']);
    const rows = await listDeliveries(daemon.store, 10);
    expect(rows.map((row) => row.attempts)).toEqual([1, 1, 1]);
    // One message per delivery, none twice.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.messages).toHaveLength(3);
  }, 60_000);
});
