import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDeliveries } from '../../src/outbox/reads.js';
import { listRecipients } from '../../src/outbox/recipients.js';
import { openStore } from '../../src/store/db.js';
import { runCli } from '../helpers/cli.js';
import { type ChannelPeers, startChannelPeers } from './channel-peers.js';
import { type DeliveryCliEnv, startDeliveryCliEnv } from './cli-env.js';

/**
 * docs/channels.md's crash column for Teams, measured across processes: `reportd deliver` of a
 * two-set digest is killed (kill -9) while the Teams stand-in holds its card, after Teams took it.
 * The next `deliver` takes the row over at once (the holder is gone) and posts the same card again:
 * at most one extra card, identical, never a third; `history` says sent with Teams' answer.
 */
let env: DeliveryCliEnv;
let peers: ChannelPeers;
let config: string;

beforeAll(async () => {
  env = await startDeliveryCliEnv();
  peers = await startChannelPeers();
  config = env.writeConfig(
    'reportd.yaml',
    `${env.accountsYaml}sync: { query_sets: [101, 102], backfill_runs: 1 }
store: { path: reportd.sqlite }
smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>" }
channels:
  - { name: leadership, type: teams, webhook_url: "${peers.url}${peers.teamsPath}", allow_private_network: true }
reports:
  - { name: weekly, query_sets: [101, 102], formats: [pdf], schedule: { cron: "0 8 * * 1" }, channels: [leadership] }
`,
  );
});
afterAll(async () => {
  await peers?.close();
  await env?.close();
});

describe('kill -9 during a digest to Teams', () => {
  it('the next deliver posts the same card once more, never a third; history says sent', async () => {
    const options = { cwd: env.dir, env: { REPORTD_LOG_LEVEL: 'warn' } };
    expect((await runCli(['sync', '--config', config, '--no-progress'], options)).code).toBe(0);
    let victim: ChildProcess | undefined;
    let killed = false;
    peers.beforeAnswer = async (route) => {
      if (route !== 'teams' || killed) return;
      killed = true;
      victim?.kill('SIGKILL');
      await new Promise((resolve) => victim?.once('close', resolve));
    };
    const first = await runCli(['deliver', '--report', 'weekly', '--config', config], {
      ...options,
      onSpawn: (child) => {
        victim = child;
      },
    });
    expect(first.signal).toBe('SIGKILL');
    const second = await runCli(['deliver', '--report', 'weekly', '--config', config], options);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(
      /^sent: report weekly, digest of query set 101 run \d+, query set 102 run \d+ to channel leadership/,
    );
    expect((await runCli(['deliver', '--pending', '--config', config], options)).stdout).toContain(
      'nothing due in the outbox',
    );
    const cards = peers.accepted('teams');
    expect(cards).toHaveLength(2);
    expect(cards[1]!.raw.equals(cards[0]!.raw)).toBe(true);
    const store = await openStore(join(env.dir, 'reportd.sqlite'));
    try {
      const [row] = await listDeliveries(store, 10);
      expect(row).toMatchObject({ state: 'sent', attempts: 2, lastError: null });
      expect(await listRecipients(store, row!.id)).toMatchObject([
        { recipient: 'leadership', state: 'accepted', reply: expect.stringMatching(/^HTTP 202/) },
      ]);
    } finally {
      await store.close();
    }
  }, 300_000);
});
