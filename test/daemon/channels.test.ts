import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/index.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { listDeliveries } from '../../src/outbox/reads.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { type ChannelPeers, startChannelPeers } from '../delivery/channel-peers.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { stubRenderer } from './helpers.js';

/**
 * The daemon delivering a `trigger: new_run` report to email, Slack and a webhook, with Slack down
 * for its first request: the daemon retries Slack alone, and /metrics counts deliveries by channel.
 */
let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let smtp: TestSmtp;
let peers: ChannelPeers;
let daemon: Daemon;

beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox({ rate: { requests: 1000, windowMs: 60_000 } });
  smtp = await startSmtp();
  peers = await startChannelPeers();
  const config = configFromObject(
    {
      accounts: [
        {
          name: 'acme',
          base_url: sandbox.baseUrl,
          api_key: sandbox.apiKey,
          api_secret: sandbox.apiSecret,
          rate_limit: { requests: 1000, window_seconds: 60 },
        },
      ],
      store: { path: 'reportd.sqlite' },
      sync: { query_sets: [101], backfill_runs: 1 },
      smtp: { url: smtp.url, from: 'Reports <reports@example.com>' },
      channels: [
        {
          name: 'marketing',
          type: 'slack',
          token: peers.slackToken,
          channel: 'C0123ABCD',
          api_url: `${peers.url}/api/`,
        },
        {
          name: 'ops',
          type: 'webhook',
          url: `${peers.url}/hook`,
          secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        },
      ],
      reports: [
        {
          name: 'on-publish',
          query_sets: [101],
          trigger: 'new_run',
          email: { to: ['ceo@example.com'] },
          channels: ['marketing', 'ops'],
        },
      ],
      http: { port: 0, host: '127.0.0.1' },
    },
    tmp.dir,
  );
  daemon = await startDaemon({
    config,
    renderer: stubRenderer(tmp.dir),
    pollMs: 200,
    outbox: { backoff: { baseMs: 300, capMs: 600 } },
  });
});

afterAll(async () => {
  await daemon?.close();
  await peers?.close();
  await smtp?.close();
  await sandbox?.close();
  tmp?.cleanup();
});

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('daemon with channels', () => {
  it('retries Slack alone after its outage and counts deliveries by channel in /metrics', async () => {
    await daemon.syncNow();
    peers.failNext.set('chat.postMessage', [{ status: 503, headers: { 'retry-after': '1' } }]);
    sandbox.publishRun(101);
    await daemon.syncNow();
    await until(async () => {
      const rows = await listDeliveries(daemon.store);
      return rows.length === 3 && rows.every((d) => d.state === 'sent');
    });
    expect(smtp.messages).toHaveLength(1);
    expect(peers.slackMessages.size).toBe(1);
    expect(peers.accepted('hook')).toHaveLength(1);
    expect(peers.requests.filter((r) => r.route === 'chat.postMessage')).toHaveLength(2);

    const text = await (await fetch(`${daemon.http!.url}/metrics`)).text();
    expect(text).toMatch(/^reportd_channel_deliveries\{channel="marketing",state="sent"\} 1$/m);
    expect(text).toMatch(/^reportd_channel_deliveries\{channel="ops",state="sent"\} 1$/m);
    expect(text).toMatch(/^reportd_channel_deliveries\{channel="email",state="sent"\} 1$/m);
    expect(text).toMatch(
      /^reportd_channel_delivery_attempts_total\{channel="marketing",result="retry"\} 1$/m,
    );
    expect(text).toMatch(/^reportd_channel_delivery_attempts_total\{channel="marketing",result="sent"\} 1$/m);
    expect(text).toMatch(/^reportd_channel_delivery_attempts_total\{channel="email",result="sent"\} 1$/m);
    expect(text).toMatch(/^reportd_deliveries\{state="sent"\} 3$/m);
  });
});
