import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import type { ReportEmailConfig } from '../../src/delivery/compose/email.js';
import type { EmailContent } from '../../src/delivery/content.js';
import { mailerFromTransport } from '../../src/delivery/destinations/smtp-mailer.js';
import type { DeliveryRenderer, OutboxOptions } from '../../src/delivery/outbox-options.js';
import { Outbox } from '../../src/delivery/outbox-worker.js';
import { getDelivery } from '../../src/outbox/reads.js';
import { openStore } from '../../src/store/db.js';
import type { Store } from '../../src/store/sql.js';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { testEngine } from '../helpers/test-store.js';
import { pausableClock } from './paused-clock.js';
import { fakeFile, startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';

const report: ReportEmailConfig = {
  name: 'weekly-executive',
  email: { to: ['ceo@example.com'], subject: 'AI visibility — {{brand}} — {{run}}' },
  max_attachment_mb: 10,
};

let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;
let stores: Store[];
/** The store of this test on the engine under test: a SQLite file, or a fresh PostgreSQL database. */
let target: string;
const onPostgres = testEngine() === 'postgres';
beforeEach(async () => {
  tmp = tempDir();
  smtp = await startSmtp();
  stores = [];
  target = onPostgres ? await freshDatabaseUrl() : join(tmp.dir, 'reportd.sqlite');
});
afterEach(async () => {
  for (const store of stores) await store.close();
  await smtp.close();
  tmp.cleanup();
});

async function store(): Promise<Store> {
  const s = await openStore(target);
  stores.push(s);
  return s;
}

function renderer(bytes = 2048, gate?: Promise<void>): DeliveryRenderer {
  return {
    async render(delivery): Promise<EmailContent> {
      await gate;
      return {
        brand: 'Northwind Coffee',
        querySet: { id: delivery.querySetId, name: 'Main set' },
        run: { id: delivery.runId, display_name: `Week ${delivery.runId}` },
        kpis: [],
        files: [{ path: fakeFile(tmp.dir, `r${delivery.id}.pdf`, bytes), format: 'pdf' }],
      };
    },
  };
}

async function outbox(overrides: Partial<OutboxOptions> & { url?: string } = {}): Promise<Outbox> {
  const transport = nodemailer.createTransport({ url: overrides.url ?? smtp.url, ignoreTLS: true } as never);
  return new Outbox({
    store: overrides.store ?? (await store()),
    renderer: renderer(),
    mailer: mailerFromTransport(transport),
    from: 'Reports <reports@example.com>',
    reports: [report],
    ...overrides,
  });
}

const key = { report: 'weekly-executive', querySetId: 101, runId: 10, account: 'acme' };

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('outbox', () => {
  it('sends one message per (report, set, run) however often it is enqueued', async () => {
    const box = await outbox();
    const first = await box.enqueue(key);
    expect(first.created).toBe(true);
    expect((await box.enqueue(key)).created).toBe(false);
    const outcomes = await box.drain();
    expect(outcomes.map((o) => o.result)).toEqual(['sent']);
    expect((await box.enqueue(key)).created).toBe(false);
    expect(await box.drain()).toEqual([]);

    expect(smtp.messages).toHaveLength(1);
    const mail = smtp.messages[0]!;
    expect(mail.subject).toBe('AI visibility — Northwind Coffee — Week 10');
    expect(mail.messageId).toBe(first.delivery.messageId);
    expect(mail.attachments.map((a) => a.filename)).toEqual([
      'weekly-executive-northwind-coffee-week-10.pdf',
    ]);
    const row = (await getDelivery(stores[0]!, first.delivery.id))!;
    expect(row).toMatchObject({ state: 'sent', attempts: 1 });
  });

  it('sends again on --force, as a new generation with its own Message-ID', async () => {
    const box = await outbox();
    const first = (await box.enqueue(key)).delivery;
    await box.drain();
    const again = await box.enqueue(key, { force: true });
    expect(again.created).toBe(true);
    expect(again.delivery.generation).toBe(1);
    await box.drain();
    expect(smtp.messages.map((m) => m.messageId)).toEqual([first.messageId, again.delivery.messageId]);
  });

  it('two workers on one store send one message', async () => {
    // PostgreSQL: a pool each, as two daemons have. SQLite serves a process through one connection,
    // so two workers of one process share it; two processes racing are in channels-processes.test.ts.
    const shared = onPostgres ? undefined : await store();
    const a = await outbox({ store: shared ?? (await store()) });
    const b = await outbox({ store: shared ?? (await store()) });
    await a.enqueue(key);
    await b.enqueue(key);
    const outcomes = (await Promise.all([a.drain(), b.drain()])).flat();
    expect(outcomes.map((o) => o.result)).toEqual(['sent']);
    expect(smtp.messages).toHaveLength(1);
  });

  it('SMTP down then up: retried with backoff, one message after the outage', async () => {
    const clock = new FakeClock(Date.UTC(2026, 3, 6, 8));
    const port = smtp.port;
    await smtp.close();
    const box = await outbox({ clock, url: `smtp://127.0.0.1:${port}` });
    const { delivery } = await box.enqueue(key);

    expect((await box.runOnce())?.result).toBe('retry');
    const row = (await getDelivery(stores[0]!, delivery.id))!;
    expect(row.state).toBe('pending');
    expect(row.lastError).toMatch(/SMTP unreachable.*ECONNREFUSED|SMTP unreachable/);
    expect(row.nextAttemptAt).toBe(clock.now() + 30_000);
    expect(await box.runOnce()).toBeUndefined(); // not due before its backoff

    await clock.advance(30_000);
    expect((await box.runOnce())?.result).toBe('retry'); // still down: backoff doubles
    expect((await getDelivery(stores[0]!, delivery.id))!.nextAttemptAt).toBe(clock.now() + 60_000);

    smtp = await startSmtp({ port });
    await clock.advance(60_000);
    expect((await box.runOnce())?.result).toBe('sent');
    expect(smtp.messages).toHaveLength(1);
    expect(await getDelivery(stores[0]!, delivery.id)).toMatchObject({ state: 'sent', attempts: 3 });
  });

  it('a 4xx reply is retried, a refused recipient fails for good with the reason', async () => {
    const clock = new FakeClock();
    const box = await outbox({
      clock,
      reports: [
        report,
        { ...report, name: 'bounce', email: { ...report.email!, to: ['nobody@bounce.test'] } },
      ],
    });
    smtp.failNext = 1;
    await box.enqueue(key);
    expect((await box.runOnce())?.result).toBe('retry');
    await clock.advance(30_000);
    expect((await box.runOnce())?.result).toBe('sent');

    const bounced = (await box.enqueue({ ...key, report: 'bounce' })).delivery;
    const outcome = await box.runOnce();
    expect(outcome?.result).toBe('failed');
    const row = (await getDelivery(stores[0]!, bounced.id))!;
    expect(row.state).toBe('failed');
    expect(row.lastError).toMatch(/refused: nobody@bounce\.test \(550 /);
    expect(smtp.messages).toHaveLength(1);
  });

  it('gives up after maxAttempts transient failures', async () => {
    const clock = new FakeClock();
    const box = await outbox({ clock, url: 'smtp://127.0.0.1:1', maxAttempts: 2 });
    const { delivery } = await box.enqueue(key);
    expect((await box.runOnce())?.result).toBe('retry');
    await clock.advance(30_000);
    expect((await box.runOnce())?.result).toBe('failed');
    expect((await getDelivery(stores[0]!, delivery.id))!.lastError).toMatch(
      /^gave up after 2 attempts: SMTP unreachable/,
    );
  });

  it('a worker paused past its lease does not send; the one that took over does, once', async () => {
    // Since the lease is renewed by a heartbeat, a live worker keeps it; only one whose timers stop
    // (SIGSTOP, a suspended VM) can lose it and then wake up to finish its render. It wakes while the
    // worker that took the row over is still rendering (row `rendering`, claimed by the other), so
    // only the claim's fencing token on `markSending` stops it: its heartbeat has not beaten yet.
    const clock = new FakeClock();
    const slowClock = pausableClock(clock);
    const slowGate = gate();
    const fastGate = gate();
    const s = await store();
    const slow = await outbox({
      clock: slowClock.clock,
      store: s,
      renderer: renderer(2048, slowGate.promise),
      leaseMs: 60_000,
    });
    const fast = await outbox({ clock, store: s, renderer: renderer(2048, fastGate.promise) });
    const { delivery } = await slow.enqueue(key);
    const slowRun = slow.runOnce();
    // Claimed and heart-beating before time moves: on PostgreSQL the claim is network round trips,
    // not microtasks, and a claim made after the advance would hold a later lease.
    await expect.poll(() => clock.pendingSleepers).toBe(1);
    await clock.advance(1_000);
    expect(await fast.runOnce()).toBeUndefined(); // lease still held
    slowClock.pause();
    await clock.advance(60_000);
    const fastRun = fast.runOnce();
    await expect.poll(async () => (await getDelivery(s, delivery.id))?.claimedBy).toBe(fast.worker);
    // The paused worker's render finishes while its heartbeat is still frozen, the new owner mid-render.
    slowGate.open();
    expect((await slowRun)?.result).toBe('lost');
    slowClock.resume();
    fastGate.open();
    expect((await fastRun)?.result).toBe('sent');
    expect(smtp.messages).toHaveLength(1);
    expect(await getDelivery(s, delivery.id)).toMatchObject({ state: 'sent', attempts: 2 });
  });

  it('leaves out attachments over max_attachment_mb, with a line saying so', async () => {
    const box = await outbox({ reports: [{ ...report, max_attachment_mb: 0.001 }] });
    await box.enqueue(key);
    await box.drain();
    const mail = smtp.messages[0]!;
    expect(mail.attachments).toHaveLength(0);
    expect(mail.text).toMatch(
      /weekly-executive-northwind-coffee-week-10\.pdf \(0\.0 MB\) was left out: over the 0\.001 MB/,
    );
    expect(mail.html).toContain('was left out');
  });
});
