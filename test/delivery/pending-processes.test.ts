import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDeliveries } from '../../src/outbox/reads.js';
import { openStore } from '../../src/store/db.js';
import { type CliResult, runCli, spawnCli } from '../helpers/cli.js';
import { type ChannelPeers, peersChannelsYaml, peersSecrets, startChannelPeers } from './channel-peers.js';
import { type DeliveryCliEnv, startDeliveryCliEnv } from './cli-env.js';

/**
 * A cron install run carelessly: two `reportd deliver --pending` and a daemon started at once on one
 * SQLite store, a two-set `trigger: new_run` report to email, Slack, Teams and a webhook (the sandbox,
 * a real SMTP server, the local channel peers, the built CLI). Each destination gets the digest once;
 * `deliver --pending` names each row by its sets and runs and its channel, as `deliver --report` does.
 */
let env: DeliveryCliEnv;
let peers: ChannelPeers;
let config: string;
let secrets: Record<string, string>;

beforeAll(async () => {
  env = await startDeliveryCliEnv();
  peers = await startChannelPeers();
  secrets = peersSecrets(peers, `whsec_${randomBytes(32).toString('base64')}`);
  config = env.writeConfig(
    'reportd.yaml',
    `${env.accountsYaml}sync: { query_sets: [101, 102], backfill_runs: 1 }
store: { path: reportd.sqlite }
smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>" }
${peersChannelsYaml(peers)}reports:
  - name: weekly
    query_sets: [101, 102]
    formats: [pdf]
    trigger: new_run
    email: { to: [ceo@example.com] }
    channels: [marketing, leadership, ops]
`,
  );
});
afterAll(async () => {
  await peers?.close();
  await env?.close();
});

const options = () => ({ cwd: env.dir, env: { ...secrets, REPORTD_LOG_LEVEL: 'warn' } });
const reportd = (...args: string[]): Promise<CliResult> =>
  runCli([...args, '--config', config, ...(args[0] === 'sync' ? ['--no-progress'] : [])], options());

/** What each receiver got: SMTP messages, Slack messages and files, Teams cards, webhook POSTs. */
const received = () => ({
  email: env.smtp.messages.length,
  slack: peers.slackMessages.size,
  files: [...peers.slackThreadFiles.values()].flat().length,
  teams: peers.accepted('teams').length,
  webhook: peers.accepted('hook').length,
});

/** A new run of both sets, synced: `sync` queues the digest for each destination. */
async function newRuns(): Promise<void> {
  env.sandbox.publishRun(101);
  env.sandbox.publishRun(102);
  const sync = await reportd('sync');
  expect(sync.code, sync.stderr).toBe(0);
}

describe('deliver --pending across processes', () => {
  it('two deliver --pending and a daemon at once: each destination gets the digest once', async () => {
    expect((await reportd('sync')).code).toBe(0);
    await newRuns();
    const daemon = spawnCli(['daemon', '--config', config], options());
    try {
      const [a, b] = await Promise.all([reportd('deliver', '--pending'), reportd('deliver', '--pending')]);
      expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
      const store = await openStore(join(env.dir, 'reportd.sqlite'));
      try {
        await expect
          .poll(async () => (await listDeliveries(store, 10)).map((d) => d.state), { timeout: 90_000 })
          .toEqual(['sent', 'sent', 'sent', 'sent']);
        expect((await listDeliveries(store, 10)).map((d) => d.attempts)).toEqual([1, 1, 1, 1]);
      } finally {
        await store.close();
      }
    } finally {
      daemon.kill('SIGTERM');
      await new Promise((resolve) => daemon.once('close', resolve));
    }
    expect(received()).toEqual({ email: 1, slack: 1, files: 1, teams: 1, webhook: 1 });
  }, 300_000);

  it('names each row by its sets, runs and channel', async () => {
    await newRuns();
    const sent = await reportd('deliver', '--pending');
    expect(sent.code, sent.stderr).toBe(0);
    const digest = 'report weekly, digest of query set 101 run \\d+, query set 102 run \\d+';
    const lines = sent.stdout.trim().split('\n').sort();
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^sent: ${digest} \\(<[^>]+>\\)$`)),
      expect.stringMatching(new RegExp(`^sent: ${digest} to channel leadership \\(<[^>]+>\\)$`)),
      expect.stringMatching(new RegExp(`^sent: ${digest} to channel marketing \\(<[^>]+>\\)$`)),
      expect.stringMatching(new RegExp(`^sent: ${digest} to channel ops \\(<[^>]+>\\)$`)),
    ]);
    expect(received()).toEqual({ email: 2, slack: 2, files: 2, teams: 2, webhook: 2 });
  }, 300_000);
});
