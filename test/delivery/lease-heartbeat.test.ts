import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import type { ReportEmailConfig } from '../../src/delivery/compose/email.js';
import type { EmailContent } from '../../src/delivery/content.js';
import { mailerFromTransport } from '../../src/delivery/destinations/smtp-mailer.js';
import {
  DEFAULT_LEASE_MS,
  type DeliveryRenderer,
  type OutboxOptions,
} from '../../src/delivery/outbox-options.js';
import { Outbox } from '../../src/delivery/outbox-worker.js';
import { getDelivery } from '../../src/outbox/reads.js';
import { openStore } from '../../src/store/db.js';
import type { Store } from '../../src/store/sql.js';
import { pausableClock } from './paused-clock.js';
import { fakeFile, startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';

/**
 * The lease is a heartbeat: a live worker keeps its row however long the render or the SMTP exchange
 * takes, a dead one's row is taken over about one (short) lease later, and an attempt that never ends
 * still ends, counted.
 */

const report: ReportEmailConfig = {
  name: 'weekly-executive',
  email: { to: ['ceo@example.com'], subject: 'Weekly {{run}}' },
  max_attachment_mb: 10,
};
const key = { report: 'weekly-executive', querySetId: 101, runId: 10, account: 'acme' };
const MINUTE = 60_000;

let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;
let smtpGate: Promise<void> | undefined;
let store: Store;
let clock: FakeClock;
beforeEach(async () => {
  tmp = tempDir();
  smtpGate = undefined;
  // Holds the next message's DATA until opened (one message only, so a takeover would not hang too).
  smtp = await startSmtp({
    onData: () => {
      const held = smtpGate ?? Promise.resolve();
      smtpGate = undefined;
      return held;
    },
  });
  store = await openStore(join(tmp.dir, 'reportd.sqlite'));
  clock = new FakeClock();
});
afterEach(async () => {
  await store.close();
  await smtp.close();
  tmp.cleanup();
});

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

function renderer(wait?: Promise<void>): DeliveryRenderer {
  return {
    async render(delivery): Promise<EmailContent> {
      await wait;
      return {
        brand: 'Northwind Coffee',
        querySet: { id: delivery.querySetId, name: 'Main set' },
        run: { id: delivery.runId, display_name: `Week ${delivery.runId}` },
        kpis: [],
        files: [{ path: fakeFile(tmp.dir, `r${delivery.id}.pdf`), format: 'pdf' }],
      };
    },
  };
}

/** A render that never finishes by itself, but ends when its signal aborts (as the real one does). */
function abortableRenderer(): DeliveryRenderer {
  return {
    render: (_delivery, signal) =>
      new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
  };
}

function outbox(overrides: Partial<OutboxOptions> = {}): Outbox {
  const transport = nodemailer.createTransport({ url: smtp.url, ignoreTLS: true } as never);
  return new Outbox({
    store,
    clock,
    renderer: renderer(),
    mailer: mailerFromTransport(transport),
    from: 'Reports <reports@example.com>',
    reports: [report],
    ...overrides,
  });
}

describe('outbox lease heartbeat', () => {
  it('uses a short default lease (recovery after kill -9 takes about a minute and a half, not 10)', () => {
    expect(DEFAULT_LEASE_MS).toBeLessThanOrEqual(90_000);
  });

  it('a render longer than the lease keeps its claim: no second worker takes it, one message', async () => {
    const render = gate();
    const slow = outbox({ renderer: renderer(render.promise) });
    const other = outbox();
    const { delivery } = await slow.enqueue(key);
    const slowRun = slow.runOnce();
    for (let minute = 1; minute <= 20; minute++) {
      await clock.advance(MINUTE);
      expect(await other.runOnce()).toBeUndefined();
      const row = (await getDelivery(store, delivery.id))!;
      expect(row).toMatchObject({ state: 'rendering', claimedBy: slow.worker, attempts: 1 });
      expect(row.leaseUntil!).toBeGreaterThan(clock.now());
    }
    render.open();
    expect((await slowRun)?.result).toBe('sent');
    expect(smtp.messages).toHaveLength(1);
    // Renewals are the same attempt: twenty minutes of heartbeats used one.
    expect(await getDelivery(store, delivery.id)).toMatchObject({ state: 'sent', attempts: 1 });
  });

  it('an SMTP exchange longer than the lease keeps its claim too (no duplicate)', async () => {
    const exchange = gate();
    smtpGate = exchange.promise;
    const slow = outbox();
    const other = outbox();
    const { delivery } = await slow.enqueue(key);
    const slowRun = slow.runOnce();
    await expect.poll(async () => (await getDelivery(store, delivery.id))!.state).toBe('sending');
    await clock.advance(10 * MINUTE);
    expect(await other.runOnce()).toBeUndefined();
    exchange.open();
    expect((await slowRun)?.result).toBe('sent');
    expect(await other.runOnce()).toBeUndefined();
    expect(smtp.messages).toHaveLength(1);
  });

  it('a worker that stops heart-beating (crashed) is taken over one lease after its last beat', async () => {
    const crashed = pausableClock(clock);
    const dead = outbox({ clock: crashed.clock, renderer: renderer(new Promise(() => {})) });
    const other = outbox();
    const { delivery } = await dead.enqueue(key);
    void dead.runOnce();
    await clock.advance(5 * MINUTE); // alive and rendering: a beat has just renewed the lease
    expect(await other.runOnce()).toBeUndefined();

    crashed.pause(); // kill -9: no more beats, the row is left in `rendering`
    const crashedAt = clock.now();
    await clock.advance(DEFAULT_LEASE_MS);
    expect(await other.runOnce()).toBeUndefined();
    await clock.advance(1);
    expect((await other.runOnce())?.result).toBe('sent');
    expect(clock.now() - crashedAt).toBeLessThanOrEqual(DEFAULT_LEASE_MS + 1);
    expect(smtp.messages).toHaveLength(1);
    expect(await getDelivery(store, delivery.id)).toMatchObject({ state: 'sent', attempts: 2 });
  });

  it('an attempt that never ends stops renewing after maxHoldMs, and attempts stay bounded', async () => {
    const hung = outbox({
      renderer: renderer(new Promise(() => {})),
      maxHoldMs: 10 * MINUTE,
      maxAttempts: 1,
    });
    const other = outbox({ maxAttempts: 1 });
    const { delivery } = await hung.enqueue(key);
    void hung.runOnce();
    await clock.advance(10 * MINUTE - 1);
    expect(await other.runOnce()).toBeUndefined();
    expect((await getDelivery(store, delivery.id))!.state).toBe('rendering');
    await clock.advance(DEFAULT_LEASE_MS + 2);
    // The one allowed attempt is used up: failed for good rather than held or retried forever.
    expect(await other.runOnce()).toBeUndefined();
    expect(await getDelivery(store, delivery.id)).toMatchObject({ state: 'failed', attempts: 1 });
    expect((await getDelivery(store, delivery.id))!.lastError).toMatch(/^gave up after 1 attempts/);
    expect(clock.pendingSleepers).toBe(0);
  });

  it('at the hold cap, ends a render that heeds its signal, so the worker itself moves on', async () => {
    const hung = outbox({ renderer: abortableRenderer(), maxHoldMs: 10 * MINUTE, maxAttempts: 3 });
    const { delivery } = await hung.enqueue(key);
    const attempt = hung.runOnce();
    await clock.advance(10 * MINUTE + 1);
    expect(await attempt).toMatchObject({ result: 'retry' });
    expect(await getDelivery(store, delivery.id)).toMatchObject({ state: 'pending', attempts: 1 });
    expect((await getDelivery(store, delivery.id))!.lastError).toBe(
      'render failed: the attempt took longer than 10 min',
    );
    expect(clock.pendingSleepers).toBe(0);
  });

  it('a worker whose row was taken over gives its render up and leaves the row alone', async () => {
    const slow = outbox({ renderer: abortableRenderer() });
    const { delivery } = await slow.enqueue(key);
    const attempt = slow.runOnce();
    await clock.advance(1);
    // As if its lease had run out and another worker claimed the row meanwhile.
    await store.run("UPDATE deliveries SET claimed_by = 'other-worker', token = 'other-claim' WHERE id = ?", [
      delivery.id,
    ]);
    await clock.advance(DEFAULT_LEASE_MS);
    expect(await attempt).toMatchObject({ result: 'lost' });
    expect(await getDelivery(store, delivery.id)).toMatchObject({
      state: 'rendering',
      claimedBy: 'other-worker',
    });
  });

  it('stops beating on every way out: sent, retry, failed, released, and a throw', async () => {
    const ways: [string, () => Promise<unknown>][] = [
      ['sent', () => outbox().runOnce()],
      [
        'retry',
        () =>
          outbox({
            mailer: mailerFromTransport(nodemailer.createTransport({ url: 'smtp://127.0.0.1:1' } as never)),
          }).runOnce(),
      ],
      [
        'failed',
        // The last attempt's render fails (a report missing from the config is not claimed at all).
        () =>
          outbox({ renderer: { render: () => Promise.reject(new Error('boom')) }, maxAttempts: 1 }).runOnce(),
      ],
      [
        'released',
        () => {
          const abort = new AbortController();
          const box = outbox({
            renderer: {
              render: (_row, signal) =>
                new Promise((_resolve, reject) => {
                  signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
                  abort.abort(new Error('stopping'));
                }),
            },
          });
          return box.runOnce(abort.signal);
        },
      ],
      [
        'throw',
        () =>
          outbox({
            // The claim scope reads the list; the bug strikes when the worker looks the report up.
            reports: Object.assign([report], {
              find() {
                throw new Error('a bug');
              },
            }) as unknown as ReportEmailConfig[],
          })
            .runOnce()
            .catch((error: Error) => ({ result: error.message })),
      ],
    ];
    for (const [expected, run] of ways) {
      const runKey = { ...key, runId: key.runId + ways.findIndex(([name]) => name === expected) };
      await outbox().enqueue(runKey);
      const outcome = (await run()) as { result: string };
      expect(outcome.result).toBe(expected === 'throw' ? 'a bug' : expected);
      expect(clock.pendingSleepers, `after ${expected}`).toBe(0);
    }
  });
});
