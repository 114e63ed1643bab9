import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { mailerFromTransport } from '../../src/delivery/destinations/smtp-mailer.js';
import { Outbox } from '../../src/delivery/outbox-worker.js';
import { silentLogger } from '../../src/log.js';
import { listNotices } from '../../src/outbox/notices.js';
import { getDelivery } from '../../src/outbox/reads.js';
import { listRecipients } from '../../src/outbox/recipients.js';
import { migrate } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations/index.js';
import type { Store } from '../../src/store/sql.js';
import { startSmtp, type TestSmtp } from '../delivery/smtp-helpers.js';
import { type TempStore, tempStore } from '../sync/helpers/temp-store.js';

/**
 * Migration 21 on both engines: a store of the previous release, with notices in every state in
 * their own table, upgraded. Each notice becomes a row of the delivery queue with its Message-ID,
 * attempts and recipients; report rows and their recipients are untouched; the pending notice is
 * then sent by the outbox (the one worker) once, with the Message-ID it was queued with.
 */
let temp: TempStore | undefined;
let smtp: TestSmtp | undefined;
afterEach(async () => {
  await temp?.cleanup();
  await smtp?.close();
  temp = undefined;
  smtp = undefined;
});

async function seedPreviousRelease(store: Store): Promise<void> {
  await store.run(
    `INSERT INTO incidents (key, kind, detail, opened_at, cleared_at) VALUES ('sync', 'sync_failing', 'it fails', 1, 2)`,
  );
  const notice = (kind: string, destination: string, recipients: string[], state: string, id: string) =>
    store.run(
      `INSERT INTO notices (incident_id, kind, destination, recipients, state, attempts, last_error, message_id,
         next_attempt_at, created_at, sent_at)
       VALUES (1, ?, ?, ?, ?, ?, ?, ?, 0, 5, ?)`,
      [
        kind,
        destination,
        JSON.stringify(recipients),
        state,
        state === 'pending' ? 2 : 1,
        state === 'pending' ? 'HTTP 503' : null,
        id,
        state === 'sent' ? 7 : null,
      ],
    );
  await notice('opened', 'email', ['ops@example.com', 'cto@example.com'], 'sent', '<n1@reportd.invalid>');
  await notice('opened', 'ops-webhook', [], 'sent', '<n2@reportd.invalid>');
  await notice('cleared', 'email', ['ops@example.com'], 'pending', '<n3@reportd.invalid>');
  const report = await store.get<{ id: number }>(
    `INSERT INTO deliveries (report, destination, query_set_id, run_id, message_id, next_attempt_at, created_at,
       updated_at, state, sent_at)
     VALUES ('weekly', 'email', 101, 10, '<r1@x>', 0, 0, 0, 'sent', 3) RETURNING id`,
  );
  await store.run(
    `INSERT INTO delivery_recipients (delivery_id, recipient, state, reply, updated_at)
     VALUES (?, 'board@example.com', 'accepted', '250 OK', 3)`,
    [report!.id],
  );
}

describe('migration 21: failure notices become rows of the delivery queue', () => {
  it('carries every notice over, keeps report rows, and the pending one is sent once with its id', async () => {
    temp = await tempStore('reportd.sqlite', {
      migrations: migrations.filter((m) => m.version < 21),
      deriveMetrics: false,
    });
    const { store } = temp;
    await seedPreviousRelease(store);
    await migrate(store, migrations);

    const notices = await listNotices(store);
    expect(
      notices.map((n) => [n.kind, n.destination, n.state, n.attempts, n.messageId, n.recipients]),
    ).toEqual([
      ['opened', 'email', 'sent', 1, '<n1@reportd.invalid>', ['ops@example.com', 'cto@example.com']],
      ['opened', 'ops-webhook', 'sent', 1, '<n2@reportd.invalid>', []],
      ['cleared', 'email', 'pending', 2, '<n3@reportd.invalid>', ['ops@example.com']],
    ]);
    expect(notices.every((n) => n.incidentId === 1)).toBe(true);
    // The report row and its recipient are as they were.
    const report = await store.get<{ id: number }>(`SELECT id FROM deliveries WHERE report = 'weekly'`);
    expect(await getDelivery(store, Number(report!.id))).toMatchObject({
      state: 'sent',
      messageId: '<r1@x>',
    });
    expect(await listRecipients(store, Number(report!.id))).toMatchObject([
      { recipient: 'board@example.com', state: 'accepted' },
    ]);
    // The old table is gone: nothing can send from it any more.
    await expect(store.all('SELECT * FROM notices')).rejects.toThrow(/notices/);

    smtp = await startSmtp();
    const transport = nodemailer.createTransport({ url: smtp.url, ignoreTLS: true } as never);
    const outbox = new Outbox({
      store,
      renderer: { render: () => Promise.reject(new Error('nothing to render')) },
      mailer: mailerFromTransport(transport),
      from: 'reports@example.com',
      reports: [],
      noticeDestinations: ['email'],
      clock: systemClock,
      logger: silentLogger,
    });
    const outcomes = await outbox.drain();
    expect(outcomes.map((o) => o.result)).toEqual(['sent']);
    expect(await outbox.drain()).toEqual([]);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.messageId).toBe('<n3@reportd.invalid>');
    expect(smtp.messages[0]!.subject).toBe('[reportd] resolved: the sync keeps failing');
    expect(smtp.envelopes[0]).toEqual(['ops@example.com']);
    expect((await listNotices(store))[2]).toMatchObject({ state: 'sent', attempts: 3 });
  }, 60_000);
});
