import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { listDeliveries } from '../../src/outbox/reads.js';
import { recipientsOf } from '../../src/outbox/recipients.js';
import { openStore } from '../../src/store/db.js';
import { verifyWebhook } from './channel-peers.js';
import { channelRig, channelWorker } from './channel-worker-process.js';

/**
 * Providers that answer after 35 s, no crash anywhere, with the channels' default timeouts (Slack 30 s,
 * Teams and webhooks 60 s) and a short lease (3 s) that the heartbeat must keep renewing through the
 * wait: one Slack message (its 30 s timeout passes, the retry finds the message by its metadata), one
 * Teams card and one webhook POST (waited for). Real 35 s answers, all three channels at once in
 * their own worker processes, so the test takes about 40 s.
 */
const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const SLOW_MS = 35_000;

/** Filled in before each test (a fresh store, SMTP server and stand-ins). */
const rig = channelRig();

function worker(destination: string): Promise<string> {
  // The channels' timeouts are left at their defaults (CHANNEL_TIMEOUT_S unset).
  return channelWorker({
    store: rig.storePath,
    smtp: rig.smtp,
    peers: rig.peers,
    webhookSecret: SECRET,
    mode: `only:${destination}`,
    leaseMs: 3_000,
    dir: rig.tmp.dir,
    env: { WORKER_DEADLINE_MS: '150000' },
  }).exit;
}

describe('providers answering after 35 s', () => {
  it('one Slack message, one Teams card, one webhook POST; history says delivered', {
    timeout: 240_000,
  }, async () => {
    const slow = new Set(['chat.postMessage', 'teams', 'hook']);
    rig.peers.beforeAnswer = async (route) => {
      // The first request of each route is answered late (after the provider did the work).
      if (!slow.delete(route)) return;
      await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
    };
    const outputs = await Promise.all(['marketing', 'leadership', 'ops'].map(worker));
    for (const output of outputs) expect(output).toContain('done');

    expect(rig.peers.slackMessages.size).toBe(1);
    expect([...rig.peers.slackThreadFiles.values()].flat()).toHaveLength(1);
    expect(rig.peers.accepted('teams')).toHaveLength(1);
    const posts = rig.peers.accepted('hook');
    expect(posts).toHaveLength(1);
    expect(verifyWebhook(posts[0]!, SECRET)).toBe('valid');

    const store = await openStore(rig.storePath);
    try {
      const rows = await listDeliveries(store, 10);
      const recipients = await recipientsOf(
        store,
        rows.map((r) => r.id),
      );
      const byDestination = Object.fromEntries(
        rows.map((r) => [
          r.destination,
          { state: r.state, attempts: r.attempts, reply: recipients.get(r.id)?.[0]?.reply },
        ]),
      );
      expect(byDestination).toEqual({
        // Teams and webhooks waited for the answer: one attempt, their answer recorded.
        leadership: { state: 'sent', attempts: 1, reply: 'HTTP 202' },
        ops: { state: 'sent', attempts: 1, reply: 'HTTP 204' },
        // Slack's call timed out after 30 s; the second attempt found the message and uploaded.
        marketing: {
          state: 'sent',
          attempts: 2,
          reply: expect.stringMatching(/^posted \S+ in C0123ABCD; uploaded/),
        },
      });
    } finally {
      await store.close();
    }
  });
});
