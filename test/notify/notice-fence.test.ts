import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { configFromObject } from '../../src/config/index.js';
import { channelSenders } from '../../src/delivery/channels/index.js';
import { Outbox } from '../../src/delivery/outbox-worker.js';
import { createLogger } from '../../src/log.js';
import { openIncident } from '../../src/notify/incidents.js';
import { listNotices } from '../../src/outbox/notices.js';
import { listRecipients } from '../../src/outbox/recipients.js';
import { openStore } from '../../src/store/db.js';
import type { Store } from '../../src/store/sql.js';
import { type ChannelPeers, startChannelPeers } from '../delivery/channel-peers.js';
import { tempDir } from '../delivery/smtp-helpers.js';

/**
 * Failure notices are rows of the one fenced queue: a worker whose claim of a notice was taken over
 * while its request was in flight (paused past its lease: here its clock stands still, so its
 * heartbeat never renews) cannot undo the new owner's result when its late answer arrives. The
 * receiver is a local server answering as a Standard Webhooks receiver.
 */
let tmp: ReturnType<typeof tempDir> | undefined;
let peers: ChannelPeers | undefined;
let store: Store | undefined;

afterEach(async () => {
  await store?.close();
  store = undefined;
  await peers?.close();
  tmp?.cleanup();
});

/**
 * The paused worker's 503 arrives while the new owner is mid-send (`staleFirst`), or after the new
 * owner recorded its 200: either way the notice is `sent` and its recipient line says what the
 * receiver answered the owner, never the stale worker's "deferred".
 */
async function pausedPastItsLease(staleFirst: boolean) {
  tmp = tempDir();
  peers = await startChannelPeers();
  store = await openStore(join(tmp.dir, 'reportd.sqlite'));
  const config = configFromObject(
    {
      accounts: [{ name: 'acme', base_url: 'http://127.0.0.1:9', api_key: 'k', api_secret: 's' }],
      store: { path: 'reportd.sqlite' },
      channels: [
        {
          name: 'ops-webhook',
          type: 'webhook',
          url: `${peers.url}/hook`,
          secret: `whsec_${Buffer.alloc(24, 7).toString('base64')}`,
        },
      ],
      notify_on_failure: { channels: ['ops-webhook'] },
    },
    tmp.dir,
  );
  const logLines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (l: string) => logLines.push(l) } });
  const worker = (name: string, clock: FakeClock) =>
    new Outbox({
      store: store!,
      mailer: { send: () => Promise.reject(new Error('no smtp')), close() {} },
      renderer: { render: () => Promise.reject(new Error('nothing to render')) },
      from: 'reportd',
      reports: [],
      noticeDestinations: ['ops-webhook'],
      channels: channelSenders(config.channels),
      leaseMs: 1_000,
      clock,
      logger,
      worker: `${name}:1:abcdef`,
    });
  const pausedClock = new FakeClock();
  const clock = new FakeClock(pausedClock.now());
  const paused = worker('paused', pausedClock);
  const owner = worker('owner', clock);
  await openIncident(store, {
    key: 'sync',
    kind: 'sync_failing',
    detail: 'the sync failed 3 passes in a row',
    at: clock.now(),
    recipients: [],
    channels: ['ops-webhook'],
  });

  // Each POST waits for the test to let its answer go; the first is answered 503.
  const gates: (() => void)[] = [];
  const holds: Promise<void>[] = [0, 1].map((i) => new Promise<void>((resolve) => (gates[i] = resolve)));
  let seen = 0;
  peers.beforeAnswer = async (route) => {
    if (route === 'hook') await holds[seen++];
  };
  peers.failNext.set('hook', [{ status: 503, body: 'down for maintenance' }]);
  const hookRequests = async (n: number) => {
    const end = Date.now() + 20_000;
    while (peers!.requests.filter((r) => r.route === 'hook').length < n) {
      if (Date.now() > end) throw new Error(`POST ${n} never arrived`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const late = paused.runOnce();
  await hookRequests(1);

  // Its lease (1 s, never renewed) runs out: the other worker takes the notice over and posts it.
  await clock.advance(5_000);
  const taken = owner.runOnce();
  await hookRequests(2);
  if (staleFirst) {
    // Its write must change nothing, or the row goes back to pending under the new owner, whose
    // success then cannot be recorded.
    gates[0]!();
    expect(await late).toMatchObject({ result: 'lost' });
    gates[1]!();
    expect(await taken).toMatchObject({ destination: 'ops-webhook', result: 'sent' });
  } else {
    gates[1]!();
    expect(await taken).toMatchObject({ destination: 'ops-webhook', result: 'sent' });
    gates[0]!();
    expect(await late).toMatchObject({ result: 'lost' });
  }

  const [notice] = await listNotices(store);
  expect(notice).toMatchObject({
    state: 'sent',
    attempts: 2,
    lastError: null,
    claimedBy: 'owner:1:abcdef',
  });
  // What `history` shows for the receiver: the owner's 200, not the stale worker's 503.
  expect(await listRecipients(store, notice!.id)).toMatchObject([
    { recipient: 'ops-webhook', state: 'accepted', reply: expect.stringMatching(/^HTTP 20\d/) },
  ]);
  expect(logLines.join('')).toMatch(/stale worker: could not record the answer/);
  // Nothing is left to send: the receiver got the one notice the README allows (same webhook-id).
  expect(await owner.drain()).toEqual([]);
  const hooks = peers.requests.filter((r) => r.route === 'hook');
  expect(hooks).toHaveLength(2);
  expect(new Set(hooks.map((r) => r.headers['webhook-id'])).size).toBe(1);
  expect(peers.accepted('hook')).toHaveLength(1);
}

describe('a notice on the fenced queue', () => {
  it(
    "a worker paused past its lease: its late 'deferred' changes nothing; the new owner's 'sent' stands",
    () => pausedPastItsLease(true),
    60_000,
  );

  it(
    "the late 'deferred' after the new owner recorded its 200: history still says the receiver's 200",
    () => pausedPastItsLease(false),
    60_000,
  );
});
