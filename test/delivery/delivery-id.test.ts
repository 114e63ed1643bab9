import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { Outbox } from '../../src/delivery/outbox-worker.js';
import { deliveryId, idStem, noticeMessageId } from '../../src/outbox/delivery-id.js';
import { openStore } from '../../src/store/db.js';

/**
 * Stores already hold these ids and receivers dedupe on them (Message-ID, webhook-id, Slack metadata):
 * every value below was computed by the four functions that made them before delivery-id.ts
 * (`defaultMessageId`, `digestMessageId`, `channelDeliveryId`, the outbox's enqueue paths) and must
 * never change.
 */
describe('the stable delivery id', () => {
  const run = { report: 'weekly', account: 'acme', querySetId: 7, runId: 42 };

  it('reproduces the ids of every kind byte for byte', () => {
    const email = { form: 'message-id' } as const;
    const at = { form: 'message-id', domain: 'example.com' } as const;
    const msg = { form: 'msg' } as const;
    expect(deliveryId({ of: 'run', ...run, generation: 0 }, email)).toBe(
      '<reportd.65595efb3f484bcb5ecc184b8a6f4c06@reportd>',
    );
    const recipients = ['reports@example.com', 'board@example.com'];
    expect(deliveryId({ of: 'run', ...run, generation: 2, extra: recipients }, at)).toBe(
      '<reportd.14f7d6e65e0fcd0eae2b5835b12a7a0c@example.com>',
    );
    // An alert by email: no account, 'alert' first in the extra parts (run-alerts.ts).
    const alertExtra = ['alert', 'reports@example.com', 'ops@example.com'];
    expect(deliveryId({ of: 'run', ...run, account: undefined, generation: 1, extra: alertExtra }, at)).toBe(
      '<reportd.2100c3e9dd0dbeced5f5b9606417ebdd@example.com>',
    );
    const covers = 'acme:7:42,acme:8:43';
    expect(deliveryId({ of: 'digest', report: 'weekly', covers, generation: 0 }, email)).toBe(
      '<reportd.b65465b7f1ef33ad80e7301ccea35ac0@reportd>',
    );
    expect(deliveryId({ of: 'digest', report: 'weekly', covers, generation: 1, extra: recipients }, at)).toBe(
      '<reportd.ee1362136d4c50f732a90d069b260b0d@example.com>',
    );
    expect(
      deliveryId(
        { of: 'digest', report: 'weekly', covers: 'acme:7:42', generation: 0, extra: ['slack-ops'] },
        email,
      ),
    ).toBe('<reportd.dd7775549e723bce41d0742e51c36082@reportd>');
    expect(deliveryId({ of: 'channel-run', ...run, destination: 'slack-ops', generation: 0 }, msg)).toBe(
      'msg_8374502eaf72faef9eb80fe5b5a834e3',
    );
    expect(
      deliveryId({ of: 'channel-run', ...run, destination: 'hook', generation: 3, extra: ['alert'] }, msg),
    ).toBe('msg_b06e9c08f4533147e063a14753c8e6cf');
    expect(
      deliveryId(
        { of: 'channel-run', report: 'r', destination: 'teams', querySetId: 1, runId: 2, generation: 0 },
        msg,
      ),
    ).toBe('msg_2fe980c000f7690a3c233e28555738db');
  });

  it('gives the rows the outbox queues the ids they had before', async () => {
    const store = await openStore(join(mkdtempSync(join(tmpdir(), 'delivery-id-')), 'store.db'));
    try {
      const outbox = new Outbox({
        store,
        renderer: { render: () => Promise.reject(new Error('not rendered here')) },
        mailer: { send: () => Promise.reject(new Error('not sent here')) } as never,
        from: 'Reports <reports@example.com>',
        reports: [
          {
            name: 'weekly',
            email: { to: ['board@example.com'], cc: ['cfo@example.com'] },
            channels: ['slack-ops', 'hook'],
          },
        ],
        channels: new Map(),
        clock: new FakeClock(Date.UTC(2026, 0, 5)),
      });
      const ids: string[] = [];
      for (const r of await outbox.enqueueAll(run)) ids.push(r.delivery.messageId);
      for (const r of await outbox.enqueueAll(run, { force: true })) ids.push(r.delivery.messageId);
      const runs = [run, { account: 'acme', querySetId: 8, runId: 43 }];
      for (const r of await outbox.enqueueDigestAll('weekly', runs)) ids.push(r.delivery.messageId);
      expect(ids).toEqual([
        '<reportd.88a3c945860d6f45cdcba59718034b1a@example.com>',
        'msg_8374502eaf72faef9eb80fe5b5a834e3',
        'msg_3b8d7feb8c02e1cebbd34ecc6d224145',
        '<reportd.b011e0e7ad75a74049edb234bd573c66@example.com>',
        'msg_bf25816a81634877490323d1557580dc',
        'msg_9839326ac779591d4d29d7f4b602936f',
        '<reportd.fd1544710fb8762357b219de4f43c285@example.com>',
        '<reportd.9265b806447b488bf28ac7b8fa756cfc@reportd>',
        '<reportd.f8bb1c1eeaa54cc4ba62df0096465e34@reportd>',
      ]);
    } finally {
      await store.close();
    }
  });

  it('never reuses a notice id, and its webhook-id is the Message-ID stem', () => {
    const a = noticeMessageId(3, 'opened');
    expect(a).toMatch(/^<reportd-notice-3-opened-[0-9a-f]{12}@reportd\.invalid>$/);
    expect(noticeMessageId(3, 'opened')).not.toBe(a);
    expect(idStem(a)).toBe(a.slice(1, a.indexOf('@')));
  });
});
