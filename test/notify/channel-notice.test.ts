import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { configFromObject } from '../../src/config/index.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { channelSenders } from '../../src/delivery/channels/index.js';
import { Outbox } from '../../src/delivery/outbox-worker.js';
import { createLogger } from '../../src/log.js';
import { openIncident } from '../../src/notify/incidents.js';
import { listNotices } from '../../src/outbox/notices.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openStore } from '../../src/store/db.js';
import type { Store } from '../../src/store/sql.js';
import { type ChannelPeers, startChannelPeers, verifyWebhook } from '../delivery/channel-peers.js';
import { tempDir } from '../delivery/smtp-helpers.js';

/**
 * Failure notices through channels: a wrong API secret in a daemon run (the sandbox over HTTP answers
 * -4) with `notify_on_failure.channels` → one signed `incident.opened` webhook, one Slack message and
 * one Teams card, however many passes fail; after the fix and a restart, one `incident.cleared` each.
 * The stand-in providers check the requests as the providers document them; the webhook signature is
 * verified by Python's hmac. A webhook answering 5xx gets the notice once, after the outage.
 */
const WRONG_SECRET = 'wrong-secret-never-posted-7d2a';
const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let tmp: ReturnType<typeof tempDir> | undefined;
let sandbox: Sandbox | undefined;
let peers: ChannelPeers | undefined;
let daemon: Daemon | undefined;
let store: Store | undefined;
const logLines: string[] = [];

afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  await store?.close();
  store = undefined;
  await sandbox?.close();
  await peers?.close();
  tmp?.cleanup();
});

const channels = (p: ChannelPeers) => [
  { name: 'ops-webhook', type: 'webhook', url: `${p.url}/hook`, secret: WEBHOOK_SECRET },
  { name: 'ops-slack', type: 'slack', token: p.slackToken, channel: 'C0OPS', api_url: `${p.url}/api/` },
  { name: 'ops-teams', type: 'teams', webhook_url: `${p.url}${p.teamsPath}` },
];

function start(secret: string) {
  const config = configFromObject(
    {
      accounts: [{ name: 'acme', base_url: sandbox!.baseUrl, api_key: sandbox!.apiKey, api_secret: secret }],
      store: { path: 'reportd.sqlite' },
      sync: { query_sets: [101], backfill_runs: 1, schedule: '0 0 1 1 *' },
      channels: channels(peers!),
      notify_on_failure: { channels: ['ops-webhook', 'ops-slack', 'ops-teams'] },
      http: { port: 0, host: '127.0.0.1' },
    },
    tmp!.dir,
  );
  const logger = createLogger({ level: 'debug', destination: { write: (l: string) => logLines.push(l) } });
  return startDaemon({ config, logger, pollMs: 200 });
}

async function until(what: () => boolean, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const events = (p: ChannelPeers) =>
  p.accepted('hook').map((r) => (r.fields as { type: string; data: { incident: { key: string } } }).type);

describe('failure notices through channels', () => {
  it('a refused credential: one incident.opened per channel, one incident.cleared after the fix', async () => {
    tmp = tempDir();
    sandbox = await startSandbox();
    peers = await startChannelPeers();

    daemon = await start(WRONG_SECRET);
    await daemon.syncNow(); // the start-up pass, then two more: all refused
    await daemon.syncNow();
    await daemon.syncNow();
    await until(
      () =>
        peers!.accepted('hook').length >= 1 &&
        peers!.accepted('chat.postMessage').length >= 1 &&
        peers!.accepted('teams').length >= 1,
    );
    await new Promise((resolve) => setTimeout(resolve, 500)); // time for a wrong second notice to show
    expect(events(peers)).toEqual(['incident.opened']);
    const opened = peers.accepted('hook')[0]!;
    expect(verifyWebhook(opened, WEBHOOK_SECRET)).toBe('valid');
    expect(opened.fields).toMatchObject({
      type: 'incident.opened',
      data: {
        title: 'acme: API credential refused',
        incident: { key: 'credential:acme', kind: 'credential_refused', cleared_at: null },
      },
    });
    const slack = peers.accepted('chat.postMessage');
    expect(slack).toHaveLength(1);
    expect(JSON.stringify(slack[0]!.fields.blocks)).toContain('acme: API credential refused');
    const teams = peers.accepted('teams');
    expect(teams).toHaveLength(1);
    const card = (
      teams[0]!.fields.attachments as { content: { version: string; body: { text: string }[] } }[]
    )[0]!.content;
    expect(card.version).toBe('1.4');
    expect(card.body[0]!.text).toBe('acme: API credential refused');
    await daemon.close();

    daemon = await start(sandbox.apiSecret);
    await daemon.syncNow();
    await until(() => peers!.accepted('hook').length >= 2 && peers!.accepted('teams').length >= 2);
    await daemon.syncNow();
    await until(() => peers!.accepted('chat.postMessage').length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(events(peers)).toEqual(['incident.opened', 'incident.cleared']);
    const cleared = peers.accepted('hook')[1]!;
    expect(verifyWebhook(cleared, WEBHOOK_SECRET)).toBe('valid');
    expect(cleared.headers['webhook-id']).not.toBe(opened.headers['webhook-id']);
    expect(cleared.fields).toMatchObject({
      type: 'incident.cleared',
      data: { title: 'resolved: acme: API credential refused', incident: { key: 'credential:acme' } },
    });
    expect(peers.accepted('chat.postMessage')).toHaveLength(2);
    expect(peers.accepted('teams')).toHaveLength(2);
    // One row per (event, destination), each sent.
    expect((await listNotices(daemon.store)).map((n) => [n.kind, n.destination, n.state])).toEqual([
      ['opened', 'ops-webhook', 'sent'],
      ['opened', 'ops-slack', 'sent'],
      ['opened', 'ops-teams', 'sent'],
      ['cleared', 'ops-webhook', 'sent'],
      ['cleared', 'ops-slack', 'sent'],
      ['cleared', 'ops-teams', 'sent'],
    ]);
    for (const request of peers.requests) expect(request.raw.toString('utf8')).not.toContain(WRONG_SECRET);
    const log = logLines.join('');
    for (const secret of [WRONG_SECRET, WEBHOOK_SECRET, peers.slackToken, peers.teamsPath])
      expect(log).not.toContain(secret);
  }, 90_000);

  it('a webhook answering 503 gets the notice once, after the outage, on the retry schedule', async () => {
    tmp = tempDir();
    peers = await startChannelPeers();
    store = await openStore(join(tmp.dir, 'reportd.sqlite'));
    const clock = new FakeClock();
    const config = configFromObject(
      {
        accounts: [{ name: 'acme', base_url: 'http://127.0.0.1:9', api_key: 'k', api_secret: 's' }],
        store: { path: 'reportd.sqlite' },
        channels: channels(peers),
        notify_on_failure: { channels: ['ops-webhook'] },
      },
      tmp.dir,
    );
    // Notices are rows of the delivery queue: an outbox that sends this channel's notices only.
    const outbox = new Outbox({
      store,
      mailer: { send: () => Promise.reject(new Error('no smtp')), close() {} },
      renderer: { render: () => Promise.reject(new Error('nothing to render')) },
      from: 'reportd',
      reports: [],
      noticeDestinations: ['ops-webhook'],
      clock,
      logger: createLogger({ level: 'debug', destination: { write: (l: string) => logLines.push(l) } }),
      channels: channelSenders(config.channels),
    });
    const sender = { drain: async () => (await outbox.drain()).filter((o) => o.result === 'sent').length };
    await openIncident(store, {
      key: 'sync',
      kind: 'sync_failing',
      detail: 'the sync failed 3 passes in a row: <b>boom</b>',
      at: clock.now(),
      recipients: [],
      channels: ['ops-webhook'],
    });
    peers.failNext.set('hook', [
      { status: 503, body: 'down for maintenance' },
      { status: 502, body: 'bad gateway' },
    ]);
    expect(await sender.drain()).toBe(0);
    let [row] = await listNotices(store);
    expect(row).toMatchObject({ destination: 'ops-webhook', state: 'pending', attempts: 1 });
    // Recorded as the queue records every destination's answer: the provider's reply, quoted.
    expect(row!.lastError).toContain('HTTP 503: down for maintenance');
    expect(await sender.drain()).toBe(0); // not due yet: nothing is sent
    expect(peers.requests.filter((r) => r.route === 'hook')).toHaveLength(1);
    await clock.advance(row!.nextAttemptAt - clock.now());
    expect(await sender.drain()).toBe(0);
    [row] = await listNotices(store);
    expect(row).toMatchObject({
      state: 'pending',
      attempts: 2,
      lastError: expect.stringContaining('HTTP 502: bad gateway'),
    });
    await clock.advance(row!.nextAttemptAt - clock.now());
    expect(await sender.drain()).toBe(1);
    expect(await sender.drain()).toBe(0);
    [row] = await listNotices(store);
    expect(row).toMatchObject({ state: 'sent', attempts: 3 });
    const hooks = peers.requests.filter((r) => r.route === 'hook');
    expect(hooks).toHaveLength(3);
    expect(peers.accepted('hook')).toHaveLength(1);
    // The retries are the same notice: one webhook-id, each attempt signed.
    expect(new Set(hooks.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const r of hooks) expect(verifyWebhook(r, WEBHOOK_SECRET)).toBe('valid');
    expect(peers.accepted('hook')[0]!.fields).toMatchObject({
      type: 'incident.opened',
      data: { incident: { detail: 'the sync failed 3 passes in a row: <b>boom</b>' } },
    });
  }, 60_000);
});
