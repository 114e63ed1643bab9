import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { type ChannelPeers, startChannelPeers, verifyWebhook } from '../delivery/channel-peers.js';
import { tempDir } from '../delivery/smtp-helpers.js';
import { spawnCli } from '../helpers/cli.js';

/**
 * Alerts through channels, end to end with real peers: the sandbox over HTTP, the stand-in Slack and
 * webhook servers and `reportd daemon` as a separate process, with no smtp at all (a channel-only
 * alert needs none). A movement run brings exactly one signed `alert.fired` and one Slack post; a
 * webhook 503 is retried by the outbox into exactly one accepted request, and later passes send
 * nothing more.
 */

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let peers: ChannelPeers;
beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox({ rate: { requests: 100_000, windowMs: 60_000 } });
  peers = await startChannelPeers();
});
afterAll(async () => {
  await sandbox?.close();
  await peers?.close();
  tmp?.cleanup();
});

function startDaemon(config: string): { child: ChildProcess; logs: () => string; passes: () => number } {
  const child = spawnCli(['daemon', '--config', config], {
    env: { SLACK_BOT_TOKEN: peers.slackToken, WEBHOOK_SECRET: SECRET },
  });
  let logs = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    logs += chunk;
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    logs += chunk;
  });
  return {
    child,
    logs: () => logs,
    passes: () =>
      logs.split('\n').filter((l) => l.includes('"job":"sync"') && l.includes('job finished')).length,
  };
}

async function until(what: string, done: () => boolean, logs: () => string, ms = 90_000) {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${logs()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('alerts through channels (sandbox, Slack and webhook peers, daemon process)', () => {
  it('one signed alert.fired and one Slack post per movement run; a 503 is retried once; nothing more', async () => {
    const config = join(tmp.dir, 'reportd.yaml');
    writeFileSync(
      config,
      `accounts:
  - { name: acme, base_url: "${sandbox.baseUrl}", api_key: ${sandbox.apiKey}, api_secret: ${sandbox.apiSecret}, rate_limit: { requests: 100000 } }
store: { path: ./store.sqlite }
sync: { query_sets: [101], schedule: "*/2 * * * * *", backfill_runs: 3 }
channels:
  - { name: ops-slack, type: slack, token: "\${SLACK_BOT_TOKEN}", channel: C0ALERTS, api_url: "${peers.url}/api/" }
  - { name: ops-webhook, type: webhook, url: "${peers.url}/hook", secret: "\${WEBHOOK_SECRET}" }
alerts:
  - name: visibility-drop
    rules:
      - { metric: presence.gross, change: "<= -5" }
      - { event: new_error }
    channels: [ops-webhook, ops-slack]
`,
    );
    const daemon = startDaemon(config);
    await until('two sync passes', () => daemon.passes() >= 2, daemon.logs);
    expect(peers.requests.filter((r) => r.route === 'hook' || r.route === 'chat.postMessage')).toHaveLength(
      0,
    );

    // The webhook receiver is down for the first attempt.
    peers.failNext.set('hook', [{ status: 503, body: 'maintenance' }]);
    sandbox.publishRun(101, { movement: true });
    await until('the Slack post', () => peers.accepted('chat.postMessage').length >= 1, daemon.logs);
    await until('the webhook after the outage', () => peers.accepted('hook').length >= 1, daemon.logs);

    const hooks = peers.requests.filter((r) => r.route === 'hook');
    expect(hooks).toHaveLength(2); // the 503, then exactly one request after the outage
    expect(hooks[0]!.headers['webhook-id']).toBe(hooks[1]!.headers['webhook-id']);
    const [delivered] = peers.accepted('hook');
    expect(verifyWebhook(delivered!, SECRET)).toBe('valid');
    const event = JSON.parse(delivered!.raw.toString('utf8')) as {
      type: string;
      data: {
        alert: string;
        account: string;
        brand: string;
        query_set: { id: number };
        run: { id: number; label: string };
        previous_run: { id: number; label: string } | null;
        firings: {
          kind: string;
          headline: string;
          before: string | null;
          after: string | null;
          metric: string | null;
          metric_name: string | null;
          significance: string | null;
          interval: { low: number; high: number } | null;
          interval_level: number | null;
          p: number | null;
          q: number | null;
          family_size: number | null;
          n: { before: number | null; after: number | null } | null;
          errors: { claims: string[] }[];
        }[];
      };
    };
    expect(event.type).toBe('alert.fired');
    expect(event.data.alert).toBe('visibility-drop');
    expect(event.data.account).toBe('acme');
    expect(event.data.brand).toBe('Northwind Coffee');
    expect(event.data.query_set.id).toBe(101);
    expect(event.data.previous_run?.id).toBeLessThan(event.data.run.id);
    const drop = event.data.firings.find((f) => f.kind === 'change');
    expect(drop?.headline).toMatch(/Gross presence changed −\d+\.\d pts/);
    expect(drop?.before).toMatch(/%$/);
    // Machines get the id beside the name, and the noise model's verdict with its numbers.
    expect(drop).toMatchObject({
      metric: 'presence.gross.current',
      metric_name: 'Gross presence',
      significance: 'likely',
      family_size: 1,
      interval_level: 0.98,
    });
    expect(drop?.interval?.high).toBeLessThan(0);
    expect(drop?.q).toBeLessThanOrEqual(0.02);
    expect(drop?.n?.after).toBeGreaterThan(1000);
    const claim = event.data.firings.find((f) => f.kind === 'new_error');
    expect(claim?.errors[0]?.claims).toContain('Northwind Coffee is closing all of its shops this year.');

    const slack = peers.accepted('chat.postMessage');
    expect(slack).toHaveLength(1);
    // The client sends `blocks` as a JSON string field; the texts a reader sees are the plain_text ones.
    const raw = slack[0]!.fields.blocks;
    const blocks = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { text?: { text: string } }[];
    const texts = blocks.map((b) => b.text?.text ?? '').join('\n');
    expect(texts).toContain('Alert: visibility-drop (Northwind Coffee)');
    expect(texts).toMatch(/\d+\.\d% → \d+\.\d% \(−\d+\.\d pts\)/);
    expect(texts).toContain('Claim: "Northwind Coffee is closing all of its shops this year."');

    // Further passes evaluate nothing new and send nothing more.
    const seen = daemon.passes();
    await until('three more passes', () => daemon.passes() >= seen + 3, daemon.logs);
    expect(peers.requests.filter((r) => r.route === 'hook')).toHaveLength(2);
    expect(peers.requests.filter((r) => r.route === 'chat.postMessage')).toHaveLength(1);
    expect(daemon.logs()).not.toContain(SECRET);
    expect(daemon.logs()).not.toContain(peers.slackToken);
    const exited = new Promise((resolve) => daemon.child.on('exit', resolve));
    daemon.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 240_000);
});
