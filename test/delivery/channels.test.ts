import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { createSlackSender } from '../../src/delivery/channels/slack.js';
import { createTeamsSender } from '../../src/delivery/channels/teams.js';
import type { ChannelSender } from '../../src/delivery/channels/types.js';
import { createWebhookSender } from '../../src/delivery/channels/webhook.js';
import type { ReportEmailConfig } from '../../src/delivery/compose/email.js';
import type { EmailContent } from '../../src/delivery/content.js';
import { mailerFromTransport } from '../../src/delivery/destinations/smtp-mailer.js';
import type { DeliveryRenderer } from '../../src/delivery/outbox-options.js';
import { Outbox } from '../../src/delivery/outbox-worker.js';
import { createLogger } from '../../src/log.js';
import { listDeliveries } from '../../src/outbox/reads.js';
import { listRecipients } from '../../src/outbox/recipients.js';
import { clearSecrets, registerSecret } from '../../src/secrets.js';
import { openStore } from '../../src/store/db.js';
import type { Store } from '../../src/store/sql.js';
import { type ChannelPeers, startChannelPeers, verifyWebhook } from './channel-peers.js';
import { fakeFile, startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';

/**
 * Each channel end to end through the outbox, against a local server that checks the requests as the
 * providers document them; the webhook signature is verified by Python's hmac (verify-webhook.py),
 * an implementation that shares no code with reportd's.
 */
const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString('base64')}`;

let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;
let peers: ChannelPeers;
let store: Store;
let clock: FakeClock;
let logLines: string[];
beforeEach(async () => {
  tmp = tempDir();
  smtp = await startSmtp();
  peers = await startChannelPeers();
  store = await openStore(join(tmp.dir, 'reportd.sqlite'));
  clock = new FakeClock();
  logLines = [];
  for (const secret of [peers.slackToken, `${peers.url}${peers.teamsPath}`, WEBHOOK_SECRET])
    registerSecret(secret);
});
afterEach(async () => {
  await store.close();
  await smtp.close();
  await peers.close();
  tmp.cleanup();
  clearSecrets();
});

const content = (delivery: { querySetId: number; runId: number; id: number }): EmailContent => ({
  brand: 'Northwind <Coffee> & Co',
  querySet: { id: delivery.querySetId, name: 'Main set' },
  run: { id: delivery.runId, display_name: `Week ${delivery.runId}` },
  kpis: [
    { label: 'Weighted presence', value: '42.1%', delta: '+1.2 pts', arrow: '▲', good: true, bad: false },
    { label: 'Life', value: '61', delta: '−3', arrow: '▼', good: false, bad: true },
  ],
  summary: 'Presence rose on ChatGPT.',
  files: [{ path: fakeFile(tmp.dir, `r${delivery.id}.pdf`, 4096), format: 'pdf' }],
});
/** A digest row's content: two sets' headlines, as headline.ts's digestEmailContent gives. */
const digestContent = (delivery: { id: number }): EmailContent => ({
  ...content({ querySetId: 101, runId: 7, id: delivery.id }),
  summary: undefined,
  digest: {
    period: 'Week 7 – Week 8',
    sets: [
      {
        brand: 'Northwind <Coffee> & Co',
        querySet: 'Main set',
        run: 'Week 7',
        querySetId: 101,
        runId: 7,
        kpis: [{ label: 'Life', value: '61', delta: '−3', arrow: '▼', good: false, bad: true }],
      },
      {
        brand: 'Contoso Tea',
        querySet: 'Tea set',
        run: 'Week 8',
        querySetId: 102,
        runId: 8,
        noNewRun: 'No new run since Week 8.',
        kpis: [{ label: 'Life', value: '55', delta: '+2', arrow: '▲', good: true, bad: false }],
      },
    ],
  },
});
const renderer: DeliveryRenderer = {
  render: async (delivery) => (delivery.covers ? digestContent(delivery) : content(delivery)),
};

function senders(): Map<string, ChannelSender> {
  return new Map<string, ChannelSender>([
    [
      'marketing',
      createSlackSender({
        name: 'marketing',
        token: peers.slackToken,
        channel: 'C0123ABCD',
        api_url: `${peers.url}/api/`,
      }),
    ],
    ['leadership', createTeamsSender({ name: 'leadership', webhook_url: `${peers.url}${peers.teamsPath}` })],
    [
      'ops',
      createWebhookSender({
        name: 'ops',
        url: `${peers.url}/hook`,
        secret: WEBHOOK_SECRET,
        include_files: false,
      }),
    ],
  ]);
}

function outbox(report: ReportEmailConfig): Outbox {
  return new Outbox({
    store,
    renderer,
    mailer: mailerFromTransport(nodemailer.createTransport({ url: smtp.url, ignoreTLS: true } as never)),
    channels: senders(),
    from: 'Reports <reports@example.com>',
    reports: [report],
    clock,
    logger: createLogger({ level: 'debug', destination: { write: (line: string) => logLines.push(line) } }),
    backoff: { baseMs: 30_000, capMs: 60_000 },
  });
}

const key = { report: 'weekly', querySetId: 101, runId: 7, account: 'acme' };
const everywhere: ReportEmailConfig = {
  name: 'weekly',
  email: { to: ['ceo@example.com'], subject: 'Weekly {{run}}' },
  channels: ['marketing', 'leadership', 'ops'],
};

function verifyWithPython(request: ChannelPeers['requests'][number]): string {
  return verifyWebhook(request, WEBHOOK_SECRET);
}

describe('channels through the outbox', () => {
  it('one row per destination: email, Slack (message + upload in its thread), Teams card, signed webhook', async () => {
    const box = outbox(everywhere);
    const rows = await box.enqueueAll(key);
    expect(rows.map((r) => [r.delivery.destination, r.created])).toEqual([
      ['email', true],
      ['marketing', true],
      ['leadership', true],
      ['ops', true],
    ]);
    // Enqueueing again adds nothing: the key is (report, destination, set, run).
    expect((await box.enqueueAll(key)).map((r) => r.created)).toEqual([false, false, false, false]);
    const outcomes = await box.drain();
    expect(outcomes.map((o) => [o.destination, o.result])).toEqual([
      ['email', 'sent'],
      ['marketing', 'sent'],
      ['leadership', 'sent'],
      ['ops', 'sent'],
    ]);
    expect(smtp.messages).toHaveLength(1);

    // Slack: the documented sequence, each method call with the bot token as a Bearer header.
    const slack = peers.requests
      .filter((r) => r.route.includes('.') || r.route === 'upload')
      .map((r) => r.route);
    expect(slack).toEqual([
      'chat.postMessage',
      'files.getUploadURLExternal',
      'upload',
      'files.completeUploadExternal',
    ]);
    const [ts, message] = [...peers.slackMessages][0]!;
    expect(message.channel).toBe('C0123ABCD');
    // API strings are plain_text in the blocks and escaped in the mrkdwn fallback text.
    expect(message.text).toBe('Northwind &lt;Coffee&gt; &amp; Co — Week 7');
    expect(JSON.stringify(message.blocks)).toContain('Weighted presence: 42.1% ▲ +1.2 pts');
    expect((message.blocks as { type: string; text?: { type: string } }[])[0]).toMatchObject({
      type: 'header',
      text: { type: 'plain_text' },
    });
    expect(peers.slackThreadFiles.get(ts)).toEqual(['weekly-northwind-coffee-co-week-7.pdf']);
    const complete = peers.accepted('files.completeUploadExternal')[0]!;
    expect(complete.fields).toMatchObject({ channel_id: 'C0123ABCD', thread_ts: ts });

    // Teams: an Adaptive Card message the peer accepted (it refuses anything else with a 400).
    const teams = peers.accepted('teams');
    expect(teams).toHaveLength(1);
    const card = (teams[0]!.fields.attachments as { content: { version: string; body: unknown[] } }[])[0]!
      .content;
    expect(card.version).toBe('1.4');
    expect(JSON.stringify(card.body)).toContain('"title":"Life","value":"61 ▼ −3"');

    // Webhook: Standard Webhooks headers, verified by Python's hmac; the body says what was delivered.
    const hook = peers.accepted('hook')[0]!;
    expect(verifyWithPython(hook)).toBe('valid');
    const row = (await listDeliveries(store)).find((d) => d.destination === 'ops')!;
    expect(hook.headers['webhook-id']).toBe(row.messageId);
    expect(hook.headers['webhook-timestamp']).toBe(String(Math.floor(clock.now() / 1000)));
    const body = JSON.parse(hook.raw.toString('utf8'));
    expect(body).toMatchObject({
      type: 'report.delivered',
      data: {
        report: 'weekly',
        account: 'acme',
        query_set: { id: 101, name: 'Main set' },
        run: { id: 7, label: 'Week 7' },
        kpis: [{ label: 'Weighted presence', value: '42.1%', delta: '+1.2 pts' }, { label: 'Life' }],
      },
    });
    const pdf = content({ querySetId: 101, runId: 7, id: 0 }).files[0]!;
    const bytes = (await import('node:fs')).readFileSync(pdf.path);
    expect(body.data.files).toEqual([
      {
        name: 'weekly-northwind-coffee-co-week-7.pdf',
        format: 'pdf',
        size: 4096,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      },
    ]);
    // A tampered body does not verify: the check above is not one that always passes.
    expect(
      verifyWithPython({ ...hook, raw: Buffer.from(hook.raw.toString('utf8').replace('weekly', 'weekly2')) }),
    ).toBe('invalid');
    expect(await listRecipients(store, row.id)).toMatchObject([{ recipient: 'ops', state: 'accepted' }]);
  });

  it('a digest goes to every destination, one row each, and each channel shows every set', async () => {
    const box = outbox(everywhere);
    const runs = [
      { account: 'acme', querySetId: 102, runId: 8 },
      { account: 'acme', querySetId: 101, runId: 7 },
    ];
    const rows = await box.enqueueDigestAll('weekly', runs);
    expect(rows.map((r) => [r.delivery.destination, r.created, r.delivery.querySetId])).toEqual([
      ['email', true, 0],
      ['marketing', true, 0],
      ['leadership', true, 0],
      ['ops', true, 0],
    ]);
    // One digest, numbered once for the report whatever the destination.
    expect(new Set(rows.map((r) => r.delivery.runId))).toEqual(new Set([1]));
    // The same runs in another order are the same digest: nothing new is enqueued.
    expect((await box.enqueueDigestAll('weekly', [...runs].reverse())).map((r) => r.created)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    const outcomes = await box.drain();
    expect(outcomes.map((o) => [o.destination, o.result])).toEqual([
      ['email', 'sent'],
      ['marketing', 'sent'],
      ['leadership', 'sent'],
      ['ops', 'sent'],
    ]);
    expect(smtp.messages).toHaveLength(1);

    const [, message] = [...peers.slackMessages][0]!;
    const blocks = JSON.stringify(message.blocks);
    expect(blocks).toContain('Main set · query set 101 · Week 7');
    expect(blocks).toContain('Tea set · query set 102 · Week 8');
    expect(blocks).toContain('No new run since Week 8.');
    expect(blocks).toContain('Life: 55 ▲ +2');

    const card = JSON.stringify(peers.accepted('teams')[0]!.fields);
    expect(card).toContain('Tea set · query set 102 · Week 8');
    expect(card).toContain('"title":"Life","value":"55 ▲ +2"');

    const hook = peers.accepted('hook')[0]!;
    expect(verifyWithPython(hook)).toBe('valid');
    const body = JSON.parse(hook.raw.toString('utf8'));
    expect(body.type).toBe('report.delivered');
    expect(body.data.digest).toMatchObject({
      period: 'Week 7 – Week 8',
      sets: [
        { query_set: { id: 101, name: 'Main set' }, run: { id: 7, label: 'Week 7' }, no_new_run: false },
        { query_set: { id: 102, name: 'Tea set' }, run: { id: 8, label: 'Week 8' }, no_new_run: true },
      ],
    });
  });

  it('Slack 5xx then 200: one message, after the outage, and the email is never resent', async () => {
    const box = outbox({ ...everywhere, channels: ['marketing'] });
    peers.failNext.set('chat.postMessage', [{ status: 503, body: 'upstream down' }]);
    await box.enqueueAll(key);
    const first = await box.drain();
    expect(first.map((o) => [o.destination, o.result])).toEqual([
      ['email', 'sent'],
      ['marketing', 'retry'],
    ]);
    expect(peers.slackMessages.size).toBe(0);
    expect(await box.drain()).toEqual([]); // not before its retry time
    await clock.advance(60_000);
    const second = await box.drain();
    expect(second.map((o) => [o.destination, o.result])).toEqual([['marketing', 'sent']]);
    expect(peers.slackMessages.size).toBe(1);
    expect(peers.accepted('files.completeUploadExternal')).toHaveLength(1);
    expect(smtp.messages).toHaveLength(1);
  });

  it('Slack "ok": false, "ratelimited" with Retry-After: retried no sooner than Slack asked, one message', async () => {
    const box = outbox({ name: 'weekly', channels: ['marketing'] });
    peers.failNext.set('chat.postMessage', [
      { status: 200, headers: { 'retry-after': '120' }, body: '{"ok":false,"error":"ratelimited"}' },
    ]);
    await box.enqueueAll(key);
    expect((await box.drain()).map((o) => o.result)).toEqual(['retry']);
    // Our backoff says 30 s; Slack asked for 120 s.
    await clock.advance(60_000);
    expect(await box.drain()).toEqual([]);
    await clock.advance(61_000);
    expect((await box.drain()).map((o) => o.result)).toEqual(['sent']);
    expect(peers.slackMessages.size).toBe(1);
  });

  it('a failed Slack upload is retried into the thread of the message already posted, not as a second message', async () => {
    const box = outbox({ name: 'weekly', channels: ['marketing'] });
    peers.failNext.set('files.completeUploadExternal', [{ status: 500, body: 'oops' }]);
    await box.enqueueAll(key);
    expect((await box.drain()).map((o) => o.result)).toEqual(['retry']);
    expect((await listDeliveries(store))[0]!.lastError).toMatch(
      /message \d+\.\d+ posted, file upload: HTTP 500/,
    );
    await clock.advance(60_000);
    expect((await box.drain()).map((o) => o.result)).toEqual(['sent']);
    expect(peers.accepted('chat.postMessage')).toHaveLength(1);
    const [ts] = [...peers.slackMessages.keys()];
    expect(peers.slackThreadFiles.get(ts!)).toEqual(['weekly-northwind-coffee-co-week-7.pdf']);
  });

  it('a webhook 4xx fails that row only, with the reply; 429 is retried after its Retry-After with the same webhook-id', async () => {
    const box = outbox({ ...everywhere, channels: ['ops'] });
    peers.failNext.set('hook', [
      { status: 429, headers: { 'retry-after': '120' }, body: 'slow down' },
      { status: 422, body: '{"error":"unknown report weekly"}' },
    ]);
    await box.enqueueAll(key);
    expect((await box.drain()).map((o) => [o.destination, o.result])).toEqual([
      ['email', 'sent'],
      ['ops', 'retry'],
    ]);
    // Our backoff says 30 s; the receiver asked for 120 s.
    await clock.advance(60_000);
    expect(await box.drain()).toEqual([]);
    await clock.advance(61_000);
    expect((await box.drain()).map((o) => [o.destination, o.result])).toEqual([['ops', 'failed']]);
    const hooks = peers.requests.filter((r) => r.route === 'hook');
    expect(hooks).toHaveLength(2);
    expect(hooks[1]!.headers['webhook-id']).toBe(hooks[0]!.headers['webhook-id']);
    const rows = await listDeliveries(store);
    expect(rows.find((d) => d.destination === 'email')!.state).toBe('sent');
    expect(rows.find((d) => d.destination === 'ops')).toMatchObject({
      state: 'failed',
      lastError: expect.stringContaining('HTTP 422: {"error":"unknown report weekly"}'),
    });
    expect(smtp.messages).toHaveLength(1);
  });

  it('a webhook redirect is not followed: the row fails naming it, nothing reaches the other host', async () => {
    const box = outbox({ name: 'weekly', channels: ['ops'] });
    peers.failNext.set('hook', [{ status: 307, headers: { location: `${peers.url}/elsewhere` }, body: '' }]);
    await box.enqueueAll(key);
    expect((await box.drain()).map((o) => o.result)).toEqual(['failed']);
    expect((await listDeliveries(store))[0]!.lastError).toContain('HTTP 307');
    expect(peers.requests.map((r) => r.route)).toEqual(['hook']);
  });

  it('a Teams payload the webhook refuses fails that row; a wrong Slack token is refused, not retried', async () => {
    const box = new Outbox({
      store,
      renderer,
      mailer: { send: () => Promise.reject(new Error('no smtp')), close() {} },
      channels: new Map<string, ChannelSender>([
        [
          'marketing',
          createSlackSender({
            name: 'marketing',
            token: 'xoxb-wrong-token-000',
            channel: 'C1',
            api_url: `${peers.url}/api`,
          }),
        ],
        ['leadership', createTeamsSender({ name: 'leadership', webhook_url: `${peers.url}/teams/other` })],
      ]),
      from: 'reportd',
      reports: [{ name: 'weekly', channels: ['marketing', 'leadership'] }],
      clock,
    });
    await box.enqueueAll(key);
    const outcomes = await box.drain();
    expect(outcomes.map((o) => [o.destination, o.result])).toEqual([
      ['marketing', 'failed'],
      ['leadership', 'failed'],
    ]);
    expect((await listDeliveries(store)).map((d) => d.lastError)).toEqual(
      expect.arrayContaining([expect.stringContaining('invalid_auth'), expect.stringContaining('HTTP 404')]),
    );
  });

  it('no channel secret reaches a log line or a stored error', async () => {
    const box = outbox(everywhere);
    // Every failure path once: a 5xx echoing the request, a network fault, then success.
    peers.failNext.set('teams', [{ status: 500, body: `bad url ${peers.url}${peers.teamsPath}` }]);
    peers.failNext.set('chat.postMessage', [{ status: 502, body: `token ${peers.slackToken}` }]);
    peers.failNext.set('hook', [{ status: 400, body: `secret ${WEBHOOK_SECRET}` }]);
    await box.enqueueAll(key);
    await box.drain();
    await clock.advance(60_000);
    await box.drain();
    const rows = await listDeliveries(store);
    const stored = JSON.stringify(
      await Promise.all(rows.map(async (d) => [d, await listRecipients(store, d.id)])),
    );
    const text = `${logLines.join('\n')}\n${stored}`;
    expect(stored).toContain('[redacted]');
    for (const secret of [peers.slackToken, peers.teamsPath, WEBHOOK_SECRET, WEBHOOK_SECRET.slice(6)]) {
      expect(text).not.toContain(secret);
    }
  });
});
