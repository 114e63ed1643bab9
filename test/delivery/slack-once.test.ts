import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createSlackSender } from '../../src/delivery/channels/slack.js';
import type { EmailContent } from '../../src/delivery/content.js';
import { mailerFromTransport } from '../../src/delivery/destinations/smtp-mailer.js';
import type { DeliveryOutcome } from '../../src/delivery/outbox-options.js';
import { Outbox } from '../../src/delivery/outbox-worker.js';
import { listDeliveries } from '../../src/outbox/reads.js';
import { listRecipients } from '../../src/outbox/recipients.js';
import { openStore } from '../../src/store/db.js';
import type { Store } from '../../src/store/sql.js';
import { type ChannelPeers, startChannelPeers } from './channel-peers.js';
import { fakeFile, startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';

/**
 * Slack gets one message and one file per delivery however its answers go missing: each message
 * carries the delivery id as metadata, an attempt after an unknown outcome looks for it
 * (conversations.history) before posting, and the upload's file ids are checkpointed so the
 * completion runs once. Against the local Slack Web API stand-in (channel-peers.ts), real HTTP.
 */
let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;
let peers: ChannelPeers;
let store: Store;
beforeEach(async () => {
  tmp = tempDir();
  smtp = await startSmtp();
  peers = await startChannelPeers();
  store = await openStore(join(tmp.dir, 'reportd.sqlite'));
});
afterEach(async () => {
  peers.beforeAnswer = undefined;
  await store.close();
  await smtp.close();
  await peers.close();
  tmp.cleanup();
});

const content = (delivery: { querySetId: number; runId: number; id: number }): EmailContent => ({
  brand: 'Northwind Coffee',
  querySet: { id: delivery.querySetId, name: 'Main set' },
  run: { id: delivery.runId, display_name: `Week ${delivery.runId}` },
  kpis: [],
  files: [{ path: fakeFile(tmp.dir, `r${delivery.id}.pdf`, 4096), format: 'pdf' }],
});

function outbox(timeoutSeconds: number): Outbox {
  const transport = nodemailer.createTransport({ url: smtp.url, ignoreTLS: true } as never);
  return new Outbox({
    store,
    renderer: { render: async (delivery) => content(delivery) },
    mailer: mailerFromTransport(transport),
    from: 'Reports <reports@example.com>',
    reports: [{ name: 'weekly', channels: ['marketing'], max_attachment_mb: 10 }],
    channels: new Map([
      [
        'marketing',
        createSlackSender({
          name: 'marketing',
          token: peers.slackToken,
          channel: 'C0123ABCD',
          api_url: `${peers.url}/api/`,
          timeout_seconds: timeoutSeconds,
        }),
      ],
    ]),
    clock: systemClock,
    backoff: { baseMs: 20, capMs: 20 },
  });
}

/** Runs the row until it is settled (retries are 20 ms apart). */
async function deliver(box: Outbox): Promise<DeliveryOutcome[]> {
  const outcomes: DeliveryOutcome[] = [];
  for (let i = 0; i < 20; i++) {
    const outcome = await box.runOnce();
    if (outcome) outcomes.push(outcome);
    const [row] = await listDeliveries(store);
    if (row && (row.state === 'sent' || row.state === 'failed')) return outcomes;
    await systemClock.sleep(30);
  }
  throw new Error(`not settled: ${JSON.stringify(outcomes)}`);
}

const key = { report: 'weekly', querySetId: 101, runId: 7, account: 'acme' };

describe('Slack, once', () => {
  it('an answer slower than the timeout: the attempt counts as unknown, the next finds the message; one message', async () => {
    const box = outbox(1);
    let slow = true;
    peers.beforeAnswer = async (route) => {
      // Slack has posted the message; its answer comes after the client stopped waiting.
      if (route === 'chat.postMessage' && slow) {
        slow = false;
        await systemClock.sleep(2_500);
      }
    };
    await box.enqueueAll(key);
    const outcomes = await deliver(box);
    expect(outcomes.map((o) => o.result)).toEqual(['retry', 'sent']);
    expect(peers.slackMessages.size).toBe(1);
    const [message] = [...peers.slackMessages.values()];
    expect(message!.metadata).toEqual({
      event_type: 'reportd_delivery',
      event_payload: { delivery_id: (await listDeliveries(store))[0]!.messageId },
    });
    expect(peers.slackThreadFiles.get(String(message!.ts))).toHaveLength(1);
    expect(peers.accepted('conversations.history')).toHaveLength(1);
    // `history` says what Slack holds: delivered, in that message's thread.
    const [row] = await listDeliveries(store);
    expect(row).toMatchObject({ state: 'sent', attempts: 2 });
    expect(await listRecipients(store, row!.id)).toMatchObject([
      { recipient: 'marketing', state: 'accepted', reply: expect.stringContaining(`posted ${message!.ts}`) },
    ]);
  });

  it('a worker paused after marking the row sending, before posting: the worker that took it over posts, the first does not', async () => {
    const slack = () =>
      createSlackSender({
        name: 'marketing',
        token: peers.slackToken,
        channel: 'C0123ABCD',
        api_url: `${peers.url}/api/`,
        timeout_seconds: 5,
      });
    const box = (clock: typeof systemClock, sender: ReturnType<typeof slack>) =>
      new Outbox({
        store,
        renderer: { render: async (delivery) => content(delivery) },
        mailer: mailerFromTransport(nodemailer.createTransport({ url: smtp.url, ignoreTLS: true } as never)),
        from: 'Reports <reports@example.com>',
        reports: [{ name: 'weekly', channels: ['marketing'], max_attachment_mb: 10 }],
        channels: new Map([['marketing', sender]]),
        clock,
        leaseMs: 1_000,
        backoff: { baseMs: 20, capMs: 20 },
      });
    // Worker A stands still between `sending` and its post (its lease heartbeat silent too, as in a
    // SIGSTOP) until B has taken the row over and posted; then it goes on.
    let reached!: () => void;
    const atPost = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let go!: () => void;
    const resumed = new Promise<void>((resolve) => {
      go = resolve;
    });
    const real = slack();
    const paused = {
      ...real,
      async send(...args: Parameters<typeof real.send>) {
        reached();
        await resumed;
        return real.send(...args);
      },
    };
    const silent = { now: () => Date.now(), sleep: () => new Promise<void>(() => {}) };
    const a = box(silent, paused);
    const b = box(systemClock, slack());
    await a.enqueueAll(key);
    const first = a.runOnce();
    await atPost;
    await systemClock.sleep(1_300);
    expect((await b.runOnce())?.result).toBe('sent');
    expect(peers.slackMessages.size).toBe(1);
    go();
    await first;
    expect(peers.slackMessages.size).toBe(1);
    const [row] = await listDeliveries(store);
    expect(row).toMatchObject({ state: 'sent', attempts: 2 });
    expect(await listRecipients(store, row!.id)).toMatchObject([
      { recipient: 'marketing', state: 'accepted' },
    ]);
  });

  for (const step of [
    'chat.postMessage',
    'files.getUploadURLExternal',
    'upload',
    'files.completeUploadExternal',
  ]) {
    it(`the answer to ${step} lost after Slack did it: one message, one file`, async () => {
      const box = outbox(5);
      let lost = false;
      peers.beforeAnswer = async (route) => {
        if (route === step && !lost) {
          lost = true;
          // The connection drops before the answer: the client cannot tell whether it went through.
          throw new Error('connection lost');
        }
      };
      await box.enqueueAll(key);
      const outcomes = await deliver(box);
      expect(outcomes.at(-1)?.result).toBe('sent');
      expect(peers.slackMessages.size).toBe(1);
      const [ts] = [...peers.slackMessages.keys()];
      expect(peers.slackThreadFiles.get(ts!)).toEqual(['weekly-northwind-coffee-week-7.pdf']);
    });
  }
});
